"""The README's function table is the registry's, and its examples give what it says."""
from pathlib import Path

from zvmplan_addin.docs import END, START, function_table

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_function_table_is_generated_from_the_registry():
    text = README.read_text(encoding="utf-8")
    table = text.split(START, 1)[1].split(END, 1)[0].strip()
    assert table == function_table()


def test_readme_names_the_published_examples():
    text = README.read_text(encoding="utf-8")
    assert '`=CPCPU_PER_MB("IUCV",9000)` | 0.012367' in text
    assert '`=TX_PER_SEC("OSA_GBE","CRR",1492,1,"4.3.0")` | 491.463' in text


def test_ci_runs_exactly_the_readme_test_command():
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    command = ci.split("# --- the README's test command ---", 1)[1].strip()
    assert f"```sh\n{command}\n```" in README.read_text(encoding="utf-8")


def test_readme_links_every_manual_page_and_each_link_resolves():
    """The README stays short and hands the manual to docs/: every docs page is linked
    from it, and every relative link in README and docs/ names a file that exists."""
    import re
    text = README.read_text(encoding="utf-8")
    docs = README.parent / "docs"
    for page in docs.glob("*.md"):
        assert f"](docs/{page.name})" in text, page.name
    for md in [README, *docs.glob("*.md")]:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", md.read_text(encoding="utf-8")):
            assert (md.parent / target).exists(), (md.name, target)
    assert len(text.splitlines()) <= 200
