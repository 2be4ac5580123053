"""``docs/reference.md``: commands and options, lanes, exit codes, variables and error codes.
Each is read from where the code defines it.

The commands come from walking the real parser (``cli.build_parser()`` with every subcommand
built), so an option added to a command's ``register`` appears here with its help text; the
lanes from the catalog; the exit codes from ``contract/errors.py``; the variables from
``docgen/environment.py``; the error codes from the code table (``contract/codes.py``). The
rendering is a pure function of those: no terminal width, no time, no path of this machine.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from dataclasses import dataclass

from agentic.cli import EXIT_TERMINATED, build_parser
from agentic.contract.codes import ENTRIES
from agentic.contract.errors import EXIT_ERROR, EXIT_GATE_FAILED, EXIT_OK
from agentic.docgen.environment import CONFIGURED, VARIABLES
from agentic.docgen.markdown import HEADER_NOTE, code, table

PAGE = "docs/reference.md"

EXIT_CODES: tuple[tuple[int, str], ...] = (
    (EXIT_OK, "complete, and every gate passed"),
    (
        EXIT_GATE_FAILED,
        "a gate failed: the promotion gate, `agentic compare` (a metric regressed), a lane that "
        "`agentic verify` finds changed, `agentic fixture check` (a task unsolvable under the "
        "oracle ceiling), `agentic ranking --gate`. A measurement, not an error",
    ),
    (
        EXIT_ERROR,
        "invalid CLI input, a failed preflight, a harness error in any receipt, or a requested "
        "lane that cannot run; always with one line on stderr, `agentic: <code>: <message>` "
        "(the codes below)",
    ),
    (EXIT_TERMINATED, "SIGTERM: every `finally` block ran (temporary files, child processes)"),
)

OTHER_ENTRIES: tuple[tuple[str, str], ...] = (
    ("python -m agentic ...", "the same as `agentic ...`"),
    (
        "python -m agentic.server --index DIR",
        "the reference MCP server over a prepared lexical index, the slim entry each cold "
        "`mcp-reference` pair spawns (`agentic serve` is the same server)",
    ),
    (
        "python -m agentic.docgen [--check]",
        "rewrite this page, `docs/modules.md` and `baselines/README.md` in the checkout; "
        "`--check` only says which is stale (exit 1)",
    ),
)


@dataclass(frozen=True)
class CommandPage:
    """One command or subcommand: its words after ``agentic``, its help, its parser."""

    words: tuple[str, ...]
    help: str
    parser: argparse.ArgumentParser


def _subcommands(
    parser: argparse.ArgumentParser,
) -> argparse._SubParsersAction[argparse.ArgumentParser] | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return None


def walk(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()) -> Iterator[CommandPage]:
    """Every command below ``parser``, depth first, in the order the parser lists them; a
    command with subcommands is listed before them."""
    subparsers = _subcommands(parser)
    if subparsers is None:
        return
    helps = {choice.dest: choice.help or "" for choice in subparsers._choices_actions}
    for name, child in subparsers.choices.items():
        path = (*words, name)
        yield CommandPage(path, helps.get(name, ""), child)
        yield from walk(child, path)


def _expanded_help(action: argparse.Action, prog: str) -> str:
    """The help text as ``--help`` prints it (argparse's ``%(default)s`` filled in)."""
    text = action.help or ""
    if "%" in text:
        text = text % {**vars(action), "prog": prog}
    return text


def _shown(action: argparse.Action, name: str) -> str:
    """``name`` as usage prints it: optional (``[X]``) or repeated (``X ...``) by its nargs."""
    if action.nargs == "?":
        return f"[{name}]"
    if action.nargs in ("+", "*"):
        return f"{name} ..."
    return name


def _choices(action: argparse.Action) -> str:
    if action.choices is None:
        return ""
    return "{" + ",".join(str(choice) for choice in action.choices) + "}"


def _value(action: argparse.Action) -> str:
    """What follows an option on the command line: its metavar, choices or name."""
    if action.nargs == 0:
        return ""
    if isinstance(action.metavar, tuple):
        return " ".join(action.metavar)
    return _shown(action, action.metavar or _choices(action) or action.dest.upper())


def _positional(action: argparse.Action) -> tuple[str, str]:
    """A positional's name as usage prints it, and its choices."""
    metavar = " ".join(action.metavar) if isinstance(action.metavar, tuple) else action.metavar
    return _shown(action, metavar or action.dest), _choices(action)


def _default(action: argparse.Action) -> str:
    """The default worth printing: not None, not False, not an empty list."""
    default = action.default
    if default is None or default is False or default in ([], argparse.SUPPRESS):
        return ""
    return code(str(default))


def _option_rows(page: CommandPage) -> list[list[str]]:
    prog = "agentic " + " ".join(page.words)
    rows: list[list[str]] = []
    for action in page.parser._actions:
        if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
            continue
        if action.help == argparse.SUPPRESS:
            continue
        if action.option_strings:
            name, value = ", ".join(action.option_strings), _value(action)
        else:
            name, value = _positional(action)
        help_text = _expanded_help(action, prog)
        if action.required and action.option_strings:
            help_text += " (required)"
        rows.append([code(name), code(value) if value else "", _default(action), help_text])
    return rows


def _sentence(text: str) -> str:
    """A help line as a sentence: capitalized, ending in one full stop."""
    text = text[:1].upper() + text[1:]
    return text if text.endswith(".") else text + "."


def _command_section(page: CommandPage) -> list[str]:
    title = "agentic " + " ".join(page.words)
    lines = [f"### `{title}`", "", _sentence(page.help)]
    subparsers = _subcommands(page.parser)
    if subparsers is not None:
        names = ", ".join(f"`{name}`" for name in subparsers.choices)
        lines += ["", f"Subcommands: {names}."]
    rows = _option_rows(page)
    if rows:
        lines += ["", table(["argument", "value", "default", "meaning"], rows)]
    return lines


def _commands() -> list[str]:
    lines = [
        "## Commands",
        "",
        "`agentic --version` prints the version; `-h` after any command prints its help.",
        "",
    ]
    for page in walk(build_parser()):
        lines += [*_command_section(page), ""]
    lines += [
        "### Other entry points",
        "",
        table(["command", "what it does"], [[code(c), text] for c, text in OTHER_ENTRIES]),
        "",
    ]
    return lines


def _lanes() -> list[str]:
    """The named lanes of this checkout's catalog (built-ins and shipped servers; plugins,
    which differ from machine to machine, are left out)."""
    from agentic.catalog.load import load_catalog

    rows = [
        [
            code(name),
            lane.agent,
            ", ".join(lane.adapters),
            lane.fixture,
            ", ".join(lane.lifecycles),
            "" if lane.promote is None else f"{lane.promote[0]} vs {lane.promote[1]}",
        ]
        for name, lane in sorted(load_catalog(plugins=False).lanes.items())
    ]
    header = ["lane", "agent", "adapters", "fixture", "lifecycles", "promotion gate"]
    return [
        "## Named lanes",
        "",
        "`agentic run --lane NAME` runs one; `--write` stages it into `baselines/NAME/`, and "
        "`agentic verify NAME` reruns it against that baseline. `nox -s optional -- NAME` stages "
        "`optional/NAME`. `agentic catalog` lists them with what can run here.",
        "",
        table(header, rows),
        "",
    ]


def _exit_codes() -> list[str]:
    rows = [[str(number), meaning] for number, meaning in EXIT_CODES]
    return ["## Exit codes", "", table(["code", "meaning"], rows), ""]


def _environment() -> list[str]:
    rows = [
        [code(v.name), v.use, code(v.module), v.meaning]
        for v in sorted(VARIABLES, key=lambda variable: variable.name)
    ]
    named = [[code(key), text] for key, text in CONFIGURED]
    return [
        "## Environment variables",
        "",
        "`read`: the kit reads it. `set`: the kit sets it for what it starts. `passed`: a "
        "backend child gets it; its environment is otherwise scrubbed.",
        "",
        table(["variable", "use", "module", "what it does"], rows),
        "",
        "Variables a config names:",
        "",
        table(["config key", "what it reads"], named),
        "",
    ]


def _error_codes() -> list[str]:
    rows = [
        [
            code(entry.code),
            entry.failure_class or "",
            "yes" if entry.input_error else "",
            entry.meaning,
        ]
        for entry in ENTRIES
    ]
    return [
        "## Error codes",
        "",
        "A code reaches you in a receipt (`failure.code`, with its class) or on stderr as "
        "`agentic: <code>: <message>` with exit 2 (column `exit 2`). The table is "
        "`agentic/contract/codes.py`; its docstring says where each kind of code lands.",
        "",
        table(["code", "receipt class", "exit 2", "meaning"], rows),
        "",
    ]


def render_reference() -> str:
    """The whole page."""
    lines = [
        HEADER_NOTE,
        "",
        "# Reference",
        "",
        "Every command and option, the named lanes, the exit codes, the environment variables "
        "and the error codes, generated from the code. Regenerate with `python -m agentic.docgen`; "
        "`tests/test_reference_doc.py` fails when this page is stale. The topic pages explain "
        "when to use what: [README](../README.md).",
        "",
        *_commands(),
        *_lanes(),
        *_exit_codes(),
        *_environment(),
        *_error_codes(),
    ]
    return "\n".join(lines).rstrip("\n") + "\n"
