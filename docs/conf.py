"""Sphinx configuration: numpydoc API pages and a sphinx-gallery of examples/."""

project = "sklearn-linsep"
author = "The sklearn-linsep developers"
copyright = "2026, The sklearn-linsep developers"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

autosummary_generate = True
templates_path = ["_templates"]
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    # every example script is executed when the site is built
    "filename_pattern": r"\.py$",
}

html_theme = "pydata_sphinx_theme"
exclude_patterns = ["_build", "_templates"]


def _skip_metadata_request_methods(app, what, name, obj, skip, options):
    # scikit-learn generates set_{fit,score,...}_request methods whose docstrings link
    # into its own site's glossary.
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_metadata_request_methods)
