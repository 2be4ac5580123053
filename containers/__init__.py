"""The pinned container image: build it, run the authoritative lane inside, compare fingerprints.

This package sits on top of the kit (it may import ``agentic``; nothing in ``agentic`` imports it)
and is not shipped in the wheel. ``nox -s container`` drives it through ``python -m containers``;
``python -m containers.lockgen`` regenerates the hash-locked requirement files the image installs.
"""
