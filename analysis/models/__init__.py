"""The one model resolver: model id -> `ModelSpec` (tokenizer, chat format, exactness, price reference).

`resolve` is what every face calls with a model id; it refuses an unknown or misspelt id with
`analysis.errors.UnknownName` and the closest names, and never substitutes a model. `rules` holds
the model -> tokenizer map of models.toml that it applies.
"""

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .families import FAMILIES as FAMILIES
    from .resolve import ModelSpec as ModelSpec, closest_models as closest_models, known_names as known_names, resolve as resolve
    from .rules import (
        EXACTNESS as EXACTNESS,
        Rule as Rule,
        TokenizerChoice as TokenizerChoice,
        choose as choose,
        explicit_choice as explicit_choice,
        load_rules as load_rules,
        rule_for as rule_for,
    )

# name -> its module, imported on first use (see analysis.lazy)
_LAZY: dict[str, str] = {
    **dict.fromkeys(('FAMILIES',), '.families'),
    **dict.fromkeys(('ModelSpec', 'closest_models', 'known_names', 'resolve'), '.resolve'),
    **dict.fromkeys(('EXACTNESS', 'Rule', 'TokenizerChoice', 'choose', 'explicit_choice', 'load_rules', 'rule_for'), '.rules'),
}
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
