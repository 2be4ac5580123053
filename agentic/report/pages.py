"""The templates of the kit's pages (``agentic/report/templates``), with the one script they may
run. Writing a page is ``output/page.py``'s."""

from __future__ import annotations

import base64
import hashlib

import jinja2
import markupsafe

from agentic.output.page import GENERATOR

__all__ = ["GENERATOR", "page_environment"]


def page_environment() -> jinja2.Environment:
    """The templates of the kit's pages (``agentic/report/templates``), autoescaped. The one
    script (``_page.js.j2``) is a global, ``page_script``, with its CSP source
    ``page_script_source``: the page allows that exact script by hash and no other."""
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("agentic.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    script = environment.get_template("_page.js.j2").render()
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    environment.globals["page_script"] = markupsafe.Markup(script)
    environment.globals["page_script_source"] = markupsafe.Markup(f"'sha256-{digest}'")
    return environment
