"""Prices and their sources: what a model charges per million tokens on a day, and who says so.

The modules: `records` (the `Rate`, `Price` and `PriceSource` values, reading nothing),
`lookup` (prices from the maintained `genai-prices` package, with the user's rows
preferred; `genai` is the one module that imports the package), `overrides` (the user's price file, read and validated) and `catalog` (every
priced model joined with the tokenizer that counts for it, for `tokenprism models` and
`/v1/models`).
"""

from typing import TYPE_CHECKING

from ...lazy import lazy_exports

if TYPE_CHECKING:
    from .records import MTOK as MTOK, Price as Price, PriceSource as PriceSource, Rate as Rate
    from .lookup import (
        find_model as find_model,
        get_price as get_price,
        list_prices as list_prices,
        model_names as model_names,
        price_source as price_source,
        provider_ids as provider_ids,
        split_ref as split_ref,
    )
    from .overrides import load_overrides as load_overrides
    from .catalog import model_table as model_table

# name -> its module, imported on first use (see analysis.lazy)
_LAZY: dict[str, str] = {
    **dict.fromkeys(('MTOK', 'Price', 'PriceSource', 'Rate'), '.records'),
    **dict.fromkeys(('find_model', 'get_price', 'list_prices', 'model_names', 'price_source', 'provider_ids', 'split_ref'), '.lookup'),
    **dict.fromkeys(('load_overrides',), '.overrides'),
    **dict.fromkeys(('model_table',), '.catalog'),
}
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
