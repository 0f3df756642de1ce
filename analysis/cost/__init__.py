"""Cost: token counts times prices, in `Decimal` USD, with every estimate labelled as one.

The modules, from the leaf up: `prices` (the price records, reading nothing), `genai` (prices from
the maintained `genai-prices` package), `overrides` (the user's price file), `models` (which
tokenizer counts for a model, and how exactly), `estimate` (a workload's cost per model, exact
Decimal), `display` (the same report rounded for people to read) and `quick` (one request).
Logged traffic: `logshapes` and `logs` (request logs of several shapes read into one
`LogRecord`), `traffic` (chunks of records reduced to partial sums per model) and `trafficsum`
(the `TrafficReport`).
"""

from .estimate import (
    DEFAULT_MODELS as DEFAULT_MODELS,
    CostReport as CostReport,
    NoPriceError as NoPriceError,
    RequestCost as RequestCost,
    Workload as Workload,
    estimate as estimate,
    request_cost as request_cost,
    to_decimal as to_decimal,
)
from .display import (
    display_categories as display_categories,
    display_models as display_models,
    format_usd as format_usd,
    model_notes as model_notes,
)
from .genai import get_price as get_price, list_prices as list_prices, price_source as price_source
from ..models import TokenizerChoice as TokenizerChoice, tokenizer_for_model as tokenizer_for_model
from .overrides import load_overrides as load_overrides
from .prices import MTOK as MTOK, Price as Price, PriceSource as PriceSource, Rate as Rate
