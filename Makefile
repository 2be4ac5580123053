# Only python3 and make are assumed: each target bootstraps a small venv holding nox,
# and nox builds every other environment itself.
PYTHON ?= python3
BOOT := .venv-nox
NOX := $(BOOT)/bin/nox

.PHONY: test check baseline verify container clean

$(NOX):
	$(PYTHON) -m venv $(BOOT)
	$(BOOT)/bin/pip install --quiet --disable-pip-version-check "nox>=2024.4.15"

# The whole offline suite (llama.cpp compiled once per machine on the first run), then lint.
test: $(NOX)
	$(NOX) -s system-packages qmd-setup tests lint

# The inner loop: the offline suite in parallel without llama.cpp (its tests skip), then lint.
check: $(NOX)
	$(NOX) -s check lint

baseline: $(NOX)
	$(NOX) -s system-packages baseline

verify: $(NOX)
	$(NOX) -s fixture verify

container: $(NOX)
	$(NOX) -s container

clean:
	rm -rf $(BOOT) .nox .mypy_cache .ruff_cache .pytest_cache
