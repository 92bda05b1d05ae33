"""Bundled data sets: the UCI files of Ben-Israel & Levin's Table 1, with loaders."""

from ._uci import (
    load_breast_cancer_wisconsin,
    load_bupa_liver,
    load_hepatitis,
    load_house_votes_84,
    load_pima_diabetes,
)

__all__ = [
    "load_breast_cancer_wisconsin",
    "load_bupa_liver",
    "load_hepatitis",
    "load_house_votes_84",
    "load_pima_diabetes",
]
