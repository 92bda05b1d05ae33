"""The order of the examples in the gallery: from the first steps to the tools."""

ORDER = [
    "plot_perceptron_iris.py",
    "plot_angle_of_separability.py",
    "breast_cancer_separability.py",
    "plot_more_features_than_samples.py",
    "plot_cost_sensitive_threshold.py",
    "plot_pocket_perceptron.py",
    "plot_cover_theorem.py",
    "plot_pipeline_separability.py",
]


class ExampleOrder:
    """sphinx-gallery ``within_subsection_order``: the files of ORDER first, in that
    order, then any other file by name."""

    def __init__(self, src_dir):
        self.src_dir = src_dir

    def __call__(self, filename):
        name = str(filename)
        if name in ORDER:
            return (ORDER.index(name), name)
        return (len(ORDER), name)

    def __repr__(self):
        return "<ExampleOrder>"
