"""The masking decision as a CP-SAT problem (Papadopoulou et al. 2022a, §3.3), as a pure function.

Given entities with a masking cost (their information content), entities
that must be masked (direct identifiers, spans risky alone) and risky sets of
entities (at least one of each must be masked), find the set of entities to
mask with the least total cost:

    minimise   sum_e cost(e) * masked(e)
    subject to masked(e) = 1                for every forced entity e
               sum_{e in S} masked(e) >= 1  for every risky set S

Forced entities and the sets they already cover are taken out before the
solver runs, so documents without real combinations never reach it. When the
solver fails or finds no solution in time, every entity of every risky set is
masked (fail closed) and the solution says so.
"""

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

COST_SCALE = 1000  # CP-SAT needs integer coefficients


@dataclass
class MaskingSolution:
    masked: list[bool]
    status: str  # OPTIMAL, FEASIBLE, TRIVIAL, or FALLBACK:<why>
    objective: float  # total cost of the masked entities
    solve_ms: float
    n_constraints: int  # risky sets left for the solver
    covering: dict[int, list[int]] = field(default_factory=dict)  # entity -> indices of sets it covers

    @property
    def fallback(self) -> bool:
        return self.status.startswith("FALLBACK")


def solve_masking(
    costs: Sequence[float],
    forced: Sequence[int],
    risky_sets: Sequence[Sequence[int]],
    *,
    time_limit_s: float = 1.0,
    num_workers: int = 1,
    seed: int = 0,
) -> MaskingSolution:
    """Decide which entities to mask. ``costs[e]`` ≥ 0; ``forced`` and the
    members of ``risky_sets`` are entity indices. Deterministic for a fixed
    ``num_workers``, ``seed`` and input."""
    start = time.perf_counter()
    n = len(costs)
    for s in risky_sets:
        for e in s:
            if not 0 <= e < n:
                raise IndexError(f"risky set member {e} is not an entity index (0..{n - 1})")
    masked = [False] * n
    for e in forced:
        masked[e] = True
    sets = [sorted(set(s)) for s in risky_sets]
    open_sets = [i for i, s in enumerate(sets) if s and not any(masked[e] for e in s)]
    # a one-entity set is a forced entity
    for i in open_sets:
        if len(sets[i]) == 1:
            masked[sets[i][0]] = True
    open_sets = [i for i in open_sets if not any(masked[e] for e in sets[i])]

    status = "TRIVIAL"
    if open_sets:
        try:
            chosen, status = _cp_sat(costs, [sets[i] for i in open_sets], time_limit_s, num_workers, seed)
            for e in chosen:
                masked[e] = True
        except Exception as error:  # fail closed
            status = f"FALLBACK:{type(error).__name__}: {error}"
        if status.startswith("FALLBACK"):
            for i in open_sets:
                for e in sets[i]:
                    masked[e] = True
    covering: dict[int, list[int]] = {}
    for i, s in enumerate(sets):
        for e in s:
            if masked[e]:
                covering.setdefault(e, []).append(i)
    return MaskingSolution(
        masked=masked,
        status=status,
        objective=sum(c for c, m in zip(costs, masked, strict=False) if m),
        solve_ms=(time.perf_counter() - start) * 1000,
        n_constraints=len(open_sets),
        covering=covering,
    )


def warm_up() -> None:
    """Import OR-Tools and solve a one-variable model, so that the first
    document's solve time measures solving, not loading the library."""
    _cp_sat([1.0], [[0]], 1.0, 1, 0)


def _cp_sat(
    costs: Sequence[float], sets: Sequence[Sequence[int]], time_limit_s: float, num_workers: int, seed: int
) -> tuple[list[int], str]:
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    variables: dict[int, Any] = {}  # cp_model.IntVar
    for s in sets:
        for e in s:
            if e not in variables:
                variables[e] = model.new_bool_var(f"mask_{e}")
    for s in sets:
        model.add_bool_or([variables[e] for e in s])
    model.minimize(sum(int(round(max(0.0, costs[e]) * COST_SCALE)) * v for e, v in variables.items()))
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = float(time_limit_s)
    solver.parameters.num_workers = int(num_workers)
    solver.parameters.random_seed = int(seed)
    result = solver.solve(model)
    name = solver.status_name(result)
    if result not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return [], f"FALLBACK:solver status {name}"
    return [e for e, v in variables.items() if solver.value(v)], name
