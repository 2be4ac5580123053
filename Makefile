# Only python3 and make are assumed: each target bootstraps a small venv holding nox,
# and nox builds every other environment itself.
PYTHON ?= python3
BOOT := .venv-nox
NOX := $(BOOT)/bin/nox

.PHONY: test baseline verify container clean

$(NOX):
	$(PYTHON) -m venv $(BOOT)
	$(BOOT)/bin/pip install --quiet --disable-pip-version-check "nox>=2024.4.15"

test: $(NOX)
	$(NOX) -s system-packages qmd-setup tests lint

baseline: $(NOX)
	$(NOX) -s system-packages baseline

verify: $(NOX)
	$(NOX) -s fixture verify

container: $(NOX)
	$(NOX) -s container

clean:
	rm -rf $(BOOT) .nox .mypy_cache .ruff_cache .pytest_cache
