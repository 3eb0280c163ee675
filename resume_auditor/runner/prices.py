"""The price table: what a model's tokens cost, from a dated file the user can edit.

`resources/prices.toml` ships with the app; a `prices.toml` in the data folder is
read after it and wins, model by model (the app never writes it; settings/prices.py
says where it is), so a user can correct a price or add a model without touching
the app. A model id matches its entry with or without a
date or version suffix. Local and self-hosted servers cost nothing; OpenRouter
reports each answer's cost, which is used as is.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from resume_auditor.resources import resource
from resume_auditor.settings.prices import PRICE_FILE, user_price_file

__all__ = ["PRICE_FILE", "Price", "PriceError", "PriceTable", "load_prices", "user_price_file"]

FREE_PROVIDERS = frozenset({"local", "openai-compatible"})
_SUFFIX = re.compile(
    r"^(?:-\d{4}-\d{2}-\d{2}|-\d{8}|-\d{3,4}|-latest|-preview(?:-[\w.-]+)?|-exp(?:-[\w.-]+)?|@[\w.-]+)$"
)
_OPENROUTER_VENDORS = {"openai": "openai", "anthropic": "anthropic", "google": "gemini"}


class PriceError(ValueError):
    """A price file that cannot be read; the message names the file and the line."""


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    cached_input: float
    output: float


@dataclass(frozen=True)
class PriceTable:
    models: dict[str, dict[str, Price]] = field(default_factory=dict)
    batch_discount: dict[str, float] = field(default_factory=dict)
    updated: str = ""
    files: tuple[str, ...] = ()

    def lookup(self, provider: str, model: str) -> Price | None:
        """The price of `model` on `provider`, or None if the table has none."""
        name = model.strip().lower().removeprefix("models/")
        if provider == "openrouter":
            found = _match(self.models.get("openrouter", {}), name)
            if found is not None:
                return found
            vendor, _, bare = name.partition("/")
            table = _OPENROUTER_VENDORS.get(vendor)
            return _match(self.models.get(table, {}), bare) if table and bare else None
        found = _match(self.models.get(provider, {}), name)
        if found is None and provider == "azure":
            found = _match(self.models.get("openai", {}), name)
        return found

    def is_free(self, provider: str) -> bool:
        return provider in FREE_PROVIDERS

    def batch_share(self, provider: str) -> float:
        """The share of the normal price a batch costs (1.0 when there is no discount)."""
        return float(self.batch_discount.get(provider, 1.0))

    def cost(
        self,
        provider: str,
        model: str,
        usage: tuple[int, int, int, int],
        *,
        batch: bool = False,
        raw: dict[str, Any] | None = None,
    ) -> float | None:
        """Dollars for one answer's usage (input, output, cached, reasoning); None if unknown."""
        if self.is_free(provider):
            return 0.0
        reported = _reported_cost(raw)
        if reported is not None:
            return reported
        price = self.lookup(provider, model)
        if price is None:
            return None
        return self.cost_of(price, usage, batch_share=self.batch_share(provider) if batch else 1.0)

    @staticmethod
    def cost_of(
        price: Price, usage: tuple[int, int, int, int], *, batch_share: float = 1.0
    ) -> float:
        input_tokens, output_tokens, cached, _reasoning = usage
        cached = min(cached, input_tokens)
        dollars = (
            (input_tokens - cached) * price.input
            + cached * price.cached_input
            + output_tokens * price.output  # reasoning tokens are billed inside output
        ) / 1_000_000
        return dollars * batch_share


def _match(table: dict[str, Price], name: str) -> Price | None:
    if name in table:
        return table[name]
    best: tuple[int, Price] | None = None
    for key, price in table.items():
        fits = name.startswith(key) and _SUFFIX.match(name[len(key) :])
        if fits and (best is None or len(key) > best[0]):
            best = (len(key), price)
    return None if best is None else best[1]


def _reported_cost(raw: dict[str, Any] | None) -> float | None:
    """OpenRouter's own figure for an answer (usage.cost), when it sent one."""
    usage = (raw or {}).get("usage")
    if isinstance(usage, dict):
        cost = usage.get("cost")
        if isinstance(cost, int | float) and not isinstance(cost, bool) and cost >= 0:
            return float(cost)
    return None


def _read(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PriceError(f"Cannot read the price file {path}: {exc.strerror or exc}.") from exc
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise PriceError(f"The price file {path} is not valid TOML: {exc}.") from exc


def _merge(into: PriceTable, data: dict[str, Any], path: Path) -> PriceTable:
    models = {p: dict(t) for p, t in into.models.items()}
    discount = dict(into.batch_discount)
    for section, entries in data.items():
        if section == "meta":
            continue
        if not isinstance(entries, dict):
            raise PriceError(f"{path}: [{section}] should be a table of models.")
        if section == "batch_discount":
            for provider, share in entries.items():
                if not isinstance(share, int | float) or not 0 < share <= 1:
                    raise PriceError(
                        f"{path}: batch_discount.{provider} should be a share between 0 and 1."
                    )
                discount[provider] = float(share)
            continue
        table = models.setdefault(section, {})
        for model, spec in entries.items():
            table[str(model).lower()] = _price(spec, f"{path}: {section}.{model}")
    meta = data.get("meta", {})
    updated = str(meta.get("updated", into.updated)) if isinstance(meta, dict) else into.updated
    return PriceTable(models, discount, updated, (*into.files, str(path)))


def _price(spec: Any, where: str) -> Price:
    if not isinstance(spec, dict):
        raise PriceError(f"{where} should be {{ input = ..., output = ... }}.")
    try:
        values = {k: float(spec[k]) for k in ("input", "output")}
    except KeyError as exc:
        raise PriceError(f"{where} lacks {exc.args[0]!r} (dollars per million tokens).") from exc
    except (TypeError, ValueError) as exc:
        raise PriceError(f"{where}: prices should be numbers.") from exc
    cached = spec.get("cached_input", values["input"])
    if not isinstance(cached, int | float) or any(v < 0 for v in (*values.values(), cached)):
        raise PriceError(f"{where}: prices should be numbers of dollars, not negative.")
    return Price(values["input"], float(cached), values["output"])


def load_prices(user_file: Path | None = None, *, shipped: Path | None = None) -> PriceTable:
    """The shipped table, overlaid by the user's copy when there is one."""
    shipped = shipped or resource(PRICE_FILE)
    table = _merge(PriceTable(), _read(shipped), shipped)
    user_file = user_file if user_file is not None else user_price_file()
    if user_file.exists():
        table = _merge(table, _read(user_file), user_file)
    return table
