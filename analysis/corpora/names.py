"""The built-in corpora's category names, as constants that read nothing.

Unlike `builtin`, which reads the corpora (and needs pandas for their frames), this module only
names them, so a command line can offer them in `--help` without loading a thing.
"""

CATEGORIES = ("prose", "code", "multilingual", "numbers", "whitespace")
GENERATED_CATEGORIES = ("numbers", "whitespace")  # made by `generated`, not stored in datasets/
