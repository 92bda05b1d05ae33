"""Sphinx configuration: numpydoc API pages and a sphinx-gallery of examples/."""

project = "sklearn-linsep"
author = "The sklearn-linsep developers"
copyright = "2026, The sklearn-linsep developers"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

autosummary_generate = True
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    # every example script is executed when the site is built
    "filename_pattern": r"\.py$",
}

intersphinx_mapping = {
    "python": ("https://docs.python.org/3", None),
    "numpy": ("https://numpy.org/doc/stable", None),
    "sklearn": ("https://scikit-learn.org/stable", None),
}

html_theme = "pydata_sphinx_theme"
exclude_patterns = ["_build"]
