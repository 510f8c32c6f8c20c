from .privacy_ner_component import DOC_ENTS, PrivacyNER, make_privacy_ner

__all__ = ["PrivacyNER", "make_privacy_ner", "DOC_ENTS"]
