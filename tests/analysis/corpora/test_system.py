"""Corpora already on the machine: stdlib sources, pydoc topics, gettext catalogues."""

from __future__ import annotations

import gettext
import struct
from pathlib import Path

import pytest

from analysis.corpora import system as corpus_system
from analysis.corpora import CorpusUnavailableError, iter_system, system_corpora
from analysis.corpora.system import (
    gettext_available,
    gettext_domains,
    iter_gettext,
    iter_pydoc,
    iter_stdlib,
    load_gettext,
    locale_to_bcp47,
    pydoc_available,
    read_mo,
    stdlib_available,
)


def write_mo(path: Path, messages: dict[str, str], *, charset: str = "UTF-8", big_endian: bool = False) -> Path:
    """A minimal .mo catalogue (GNU format), written by hand so the tests need no msgfmt."""
    entries = sorted({"": f"Content-Type: text/plain; charset={charset}\n", **messages}.items())
    ids = [k.encode(charset) for k, _ in entries]
    strs = [v.encode(charset) for _, v in entries]
    order = ">" if big_endian else "<"
    n = len(entries)
    orig_at, trans_at = 28, 28 + 8 * n
    data_at = trans_at + 8 * n
    table, blob = [], b""
    for s in ids + strs:
        table.append((len(s), data_at + len(blob)))
        blob += s + b"\x00"
    head = struct.pack(order + "7I", 0x950412DE, 0, n, orig_at, trans_at, 0, 0)
    body = b"".join(struct.pack(order + "2I", *t) for t in table)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(head + body + blob)
    return path


def test_read_mo_agrees_with_the_stdlib_gettext(tmp_path):
    msgs = {"Open": "Ouvrir", "Save as…": "Enregistrer sous…", "menu\x04Quit": "Quitter"}
    path = write_mo(tmp_path / "fr.mo", msgs)
    parsed = read_mo(path)
    assert parsed == msgs
    with open(path, "rb") as fh:
        ref = gettext.GNUTranslations(fh)
    assert all(ref.gettext(k) == v for k, v in msgs.items() if "\x04" not in k)
    assert read_mo(write_mo(tmp_path / "be.mo", msgs, big_endian=True)) == msgs
    assert read_mo(write_mo(tmp_path / "l1.mo", {"Yes": "Sí"}, charset="ISO-8859-1")) == {"Yes": "Sí"}


def test_read_mo_rejects_other_files(tmp_path):
    (tmp_path / "x.mo").write_bytes(b"not a catalogue at all, but long enough")
    with pytest.raises(ValueError, match=r"x.mo is not a .mo catalogue \(magic 0x"):
        read_mo(tmp_path / "x.mo")


@pytest.fixture
def locale_dir(tmp_path) -> Path:
    root = tmp_path / "locale"
    write_mo(root / "fr/LC_MESSAGES/app.mo", {"Open": "Ouvrir", "Close": "Fermer", "Quit": "Quitter"})
    write_mo(root / "ru/LC_MESSAGES/app.mo", {"Open": "Открыть", "Close": "Закрыть", "Quit": "Выйти"})
    write_mo(root / "sr@latin/LC_MESSAGES/app.mo", {"Open": "Otvori", "Close": "Zatvori", "Quit": "Izađi"})
    write_mo(root / "de/LC_MESSAGES/app.mo", {"Open": "Öffnen"})  # 1/3 translated
    write_mo(root / "en@quot/LC_MESSAGES/app.mo", {"Open": "Open"})
    write_mo(root / "fr/LC_MESSAGES/other.mo", {"Yes": "Oui"})
    return root


def test_load_gettext_is_a_parallel_corpus(locale_dir):
    assert gettext_available(locale_dir)
    assert gettext_domains(locale_dir).to_dict("records")[0] == {"domain": "app", "n_languages": 4}
    lines = load_gettext("app", locale_dir=locale_dir)
    counts = lines.groupby("language").size()
    assert counts.to_dict() == {"en": 3, "fr": 3, "ru": 3, "sr-Latn": 3}  # de under 90%, en@quot skipped
    ru = lines[lines["language"] == "ru"]
    assert ru["text"].tolist() == ["Закрыть", "Открыть", "Выйти"]
    assert ru["script"].iloc[0] == "Cyrl"
    assert lines[lines["language"] == "en"]["text"].tolist() == ["Close", "Open", "Quit"]
    with_de = load_gettext("app", locale_dir=locale_dir, min_coverage=0.3)
    assert with_de.groupby("language").size().to_dict()["de"] == 1  # only the common message left
    samples = list(iter_gettext("app", locale_dir=locale_dir))
    fr = next(s for s in samples if s.language == "fr")
    assert (fr.id, fr.category, fr.kind, fr.text) == ("gettext/app/fr", "multilingual", "ui-strings", "Fermer\nOuvrir\nQuitter")


def test_load_gettext_errors(locale_dir, tmp_path):
    with pytest.raises(ValueError, match=r"no gettext domain 'nope' .*most translated: app, other"):
        load_gettext("nope", locale_dir=locale_dir)
    with pytest.raises(ValueError, match=r"has no catalogue for \['xx'\]"):
        load_gettext("app", locale_dir=locale_dir, languages=["fr", "xx"])
    (tmp_path / "empty").mkdir()
    assert not gettext_available(tmp_path / "empty")
    with pytest.raises(CorpusUnavailableError, match=r"no gettext catalogues \(.mo\) under .*empty"):
        load_gettext("app", locale_dir=tmp_path / "empty")


def test_locale_names_become_bcp47():
    assert [locale_to_bcp47(n) for n in ("fr", "pt_BR", "zh_CN", "sr@latin", "uz@cyrillic", "sr_RS@latin")] == [
        "fr", "pt-BR", "zh-CN", "sr-Latn", "uz-Cyrl", "sr-Latn-RS"]


def test_machine_gettext_catalogues_when_present():
    if not gettext_available():
        pytest.skip("no .mo catalogues under /usr/share/locale on this machine")
    domain = gettext_domains()["domain"].iloc[0]
    lines = load_gettext(domain)
    assert lines.groupby("language").size().nunique() == 1  # aligned
    assert lines["language"].nunique() >= 2


def test_stdlib_sources():
    if not stdlib_available():
        pytest.skip("the Python standard library sources are not installed")
    samples = list(iter_stdlib(limit=3))
    assert len(samples) == 3
    assert all(s.id.startswith("stdlib/") and s.id.endswith(".py") for s in samples)
    assert all(s.category == "code" and s.kind == "python" and s.text for s in samples)
    ids = [s.id for s in iter_stdlib()]
    assert "stdlib/os.py" in ids
    assert not any("/test/" in i or i.startswith("stdlib/test/") for i in ids)
    assert not any("site-packages" in i for i in ids)


def test_stdlib_absent_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(corpus_system, "stdlib_dir", lambda: tmp_path)
    assert not stdlib_available()
    with pytest.raises(CorpusUnavailableError, match="standard library sources are not at"):
        next(iter_stdlib())


def test_pydoc_topics():
    if not pydoc_available():
        pytest.skip("pydoc_data is not installed")
    (s,) = iter_pydoc(topics=["if"])
    assert s.id == "pydoc/if"
    assert s.category == "prose"
    assert "if" in s.text
    assert len(list(iter_pydoc())) > 50
    with pytest.raises(KeyError, match="unknown pydoc topic 'nope'"):
        list(iter_pydoc(topics=["nope"]))


def test_pydoc_absent_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(corpus_system, "pydoc_available", lambda: False)
    with pytest.raises(CorpusUnavailableError, match="pydoc_data is not installed"):
        next(iter_pydoc())


def test_system_corpora_table_and_dispatch():
    table = system_corpora()
    assert table["name"].tolist() == ["stdlib", "pydoc", "gettext"]
    assert table["available"].dtype == bool
    with pytest.raises(ValueError, match="unknown machine corpus 'web'; valid: stdlib, pydoc, gettext"):
        iter_system("web")
    if pydoc_available():
        assert next(iter_system("pydoc")).id.startswith("pydoc/")
