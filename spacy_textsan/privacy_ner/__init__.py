from .privacy_ner_component import PrivacyNER, make_privacy_ner, DOC_ENTS

__all__ = ["PrivacyNER", "make_privacy_ner", "DOC_ENTS"]
