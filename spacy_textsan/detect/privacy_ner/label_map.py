"""Default mapping from OntoNotes-style NER labels onto the 8 TAB types.

A label mapped to ``None`` (or absent from the map) is dropped: ORDINAL, and
LAW (names of legislation are public and identify no one; on TAB train 92% of
the characters of LAW entities were not masked by any annotator). The 8 TAB
labels map onto themselves so that a pipeline trained on TAB can be used as a
source unchanged. ``CARDINAL`` maps to CODE but only numbers with at least
``min_code_digits`` digits are kept (as in TAB's NER baseline).
"""

DEFAULT_LABEL_MAP: dict[str, str | None] = {
    "PERSON": "PERSON",
    "NORP": "DEM",
    "GPE": "LOC",
    "LOC": "LOC",
    "FAC": "LOC",
    "ORG": "ORG",
    "DATE": "DATETIME",
    "TIME": "DATETIME",
    "MONEY": "QUANTITY",
    "QUANTITY": "QUANTITY",
    "PERCENT": "QUANTITY",
    "LAW": None,  # legislation is public: "Immigration Act", "Penal Code" identify no one
    "EVENT": "MISC",
    "PRODUCT": "MISC",
    "WORK_OF_ART": "MISC",
    "LANGUAGE": "MISC",
    "CARDINAL": "CODE",
    "ORDINAL": None,
    # TAB labels (trained pipelines) map onto themselves.
    "CODE": "CODE",
    "DEM": "DEM",
    "DATETIME": "DATETIME",
    "MISC": "MISC",
}
