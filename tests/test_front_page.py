"""The README is a front page that fits a screen; the reference is in docs/, and every link leads somewhere."""

import re

from docs_text import ROOT, doc_text

FRONT_PAGE_BYTES = 12 * 1024
# [text](target) and ![alt](target); the target up to a space (a title) or the closing bracket.
LINK = re.compile(r"\]\(([^)\s]+)[^)]*\)")
PAGES = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))]
# Pages made elsewhere that the front page links all the same (docs/configuration.md comes
# from the config's declaration): each must exist like any other.
MADE_PAGES = ["docs/configuration.md"]


def relative_links(name: str) -> list[str]:
    """The relative links of a Markdown page (fenced code aside), each without its #fragment."""
    text = re.sub(r"^```.*?^```", "", doc_text(name), flags=re.M | re.S)
    targets = [target.split("#", 1)[0] for target in LINK.findall(text)]
    return [t for t in targets if t and not re.match(r"[a-z][a-z0-9+.-]*:", t)]


def test_the_front_page_fits_in_12_kb():
    """README.md is at most 12 KB: what it is, a picture, the set-up, and where to go next."""
    size = (ROOT / "README.md").stat().st_size
    assert size <= FRONT_PAGE_BYTES, f"README.md is {size} bytes, over {FRONT_PAGE_BYTES}"


def test_every_relative_link_leads_to_a_file():
    """Each relative link (and picture) of README.md and docs/*.md names a file or folder that exists."""
    broken = [f"{name}: {target}" for name in PAGES for target in relative_links(name)
              if not ((ROOT / name).parent / target).exists()]
    assert not broken, "links to nothing:\n" + "\n".join(broken)


def test_the_front_page_links_every_docs_page_and_shows_a_picture():
    """README.md links each page of docs/ (and the build, service and benchmark pages), and shows a
    snapshot with its alt text."""
    linked = {str(((ROOT / target).resolve()).relative_to(ROOT)) for target in relative_links("README.md")}
    wanted = {name for name in PAGES if name != "README.md"} | set(MADE_PAGES)
    wanted |= {"hardware/README.md", "systemd/README.md", "tests/system/README.md", "bench/README.md"}
    assert wanted <= linked, sorted(wanted - linked)
    picture = re.search(r"!\[([^\]]+)\]\((docs/snapshots/[^)]+\.png)\)", doc_text("README.md"))
    assert picture and len(picture.group(1).split()) >= 5 and (ROOT / picture.group(2)).is_file()
