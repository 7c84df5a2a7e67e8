"""Generated blocks of a docs page, shared by the tools/*_tables.py scripts.

A block is the text between a begin marker and an end marker (HTML comments, so the page renders
without them); `replace_block` swaps what is between them and keeps the markers. A missing or
misordered marker stops the script with the markers named, so a renamed block is never skipped
silently. Standard library only.
"""
import sys


def replace_block(doc, begin, end, text, who):
    """Returns DOC with the text between BEGIN and END replaced by TEXT (lines, or one string)."""
    if not isinstance(text, str):
        text = "\n".join(text)
    i = doc.find(begin)
    j = doc.find(end, i + len(begin)) if i >= 0 else -1
    if i < 0 or j < 0:
        sys.exit(f"{who}: no block {begin} ... {end} in the page")
    return doc[:i + len(begin)] + "\n" + text + "\n" + doc[j:]


def rewrite(path, blocks, markers, who):
    """Rewrites the page at PATH: BLOCKS maps a block name to its text (None leaves the block as
    it is, with a note); MARKERS(name) gives the block's (begin, end) markers. The page is written
    once, after every block was made, so an error leaves it untouched."""
    with open(path) as f:
        doc = f.read()
    for name, text in blocks.items():
        begin, end = markers(name)
        if text is None:
            if doc.find(begin) < 0:
                sys.exit(f"{who}: no block {begin} in the page")
            print(f"{who}: {name}: its inputs are missing, left as is", file=sys.stderr)
            continue
        doc = replace_block(doc, begin, end, text, who)
    with open(path, "w") as f:
        f.write(doc)
