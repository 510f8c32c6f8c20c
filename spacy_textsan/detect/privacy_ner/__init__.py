"""The ``privacy_ner`` component (:mod:`.privacy_ner`), its config blocks
(:mod:`.rule_layer`: ``spacy_textsan.rule_layer.v1``; :mod:`.mentions`:
``spacy_textsan.mentions.v1``) and the pure detectors it runs.

* sources of NER entities: :mod:`.sources`, mapped by :mod:`.label_map`;
* the rule layer: :mod:`.rules` (dates, amounts, codes, titled names, allow patterns);
* the identifier layer, assembled in :mod:`.identifiers`: :mod:`.network`,
  :mod:`.addresses`, :mod:`.standard_numbers`, :mod:`.tables`, :mod:`.phones`;
* the name layer: :mod:`.names` (lexicon), :mod:`.script_names`, :mod:`.cued_names`,
  :mod:`.name_mentions`, :mod:`.adjacent_names` (given names beside a surname),
  :mod:`.places` (places after a preposition);
* the detection copy of a text: :mod:`.normalize`;
* from candidates to entities: :mod:`.combine` (overlaps, names claimed from
  misread NER spans), :mod:`.propagation`
  (other mentions), :mod:`.entity_ids` (one id per entity).
"""

from .mentions import Mentions
from .privacy_ner import DOC_ENTS, PrivacyNER, make_privacy_ner
from .rule_layer import RuleLayer

__all__ = ["PrivacyNER", "make_privacy_ner", "DOC_ENTS", "Mentions", "RuleLayer"]
