PYTHON ?= python3
PIP    ?= $(PYTHON) -m pip

.PHONY: install install-lint test test-fast bench demo lint clean rl-demo

# Light install: what the lint path and the pre-commit hook need.
install-lint:
	$(PIP) install -q -e .

# Everything the tests need (no GPU; torch's CPU build).
install:
	$(PIP) install -q -e '.[test]'

test: install
	$(PYTHON) -m pytest -q

test-fast: install
	$(PYTHON) -m pytest -q -m "not slow"

# CPU benchmarks (bench/profiler_speed.py needs the GPU: see corpus/README.md)
bench: install
	$(PYTHON) bench/lint_speed.py
	$(PYTHON) bench/surrogate_speed.py
	$(PYTHON) bench/rl_budget.py

# On a GPU machine (the device): the load_inline candidates built 8 at a time first (a cold build
# is ~55 s, and the tests would build them one by one), then every gpu-marked test.
.PHONY: test-gpu
test-gpu:
	$(PYTHON) -m rl.tasks.torch_prebuild -j 8 rl/suites/torch/candidates/*.py ; true
	$(PYTHON) -m pytest -q -m gpu

# The main job on the embedded default: lint the example kernels that ship in the package.
# Exit code 1 means "findings", which is what the examples are for.
demo: install-lint
	$(PYTHON) -m analyzer lint --show-estimates $$($(PYTHON) -c 'import analyzer.examples as e; print(e.DIR)') ; test $$? -le 1

# The RL loop on a CPU: the demo config, rewards from the surrogate plus replayed H200 measurements.
rl-demo: install
	$(PYTHON) -m rl train demo

# Lint our own CUDA sources (the corpus kernels) with our own linter.
lint: install-lint
	$(PYTHON) -m analyzer lint corpus ; test $$? -le 1

# Rebuild the default surrogate (rewardmodel/default_model.zip) from the measurements in corpus/data.
.PHONY: model
model:
	$(PIP) install -q -e '.[model]'
	$(PYTHON) -m rewardmodel train --extra-samples rl.tasks:task_samples

clean:
	rm -rf build dist *.egg-info .pytest_cache bench/results/*.tmp
	find analyzer rewardmodel \( -name '*.so' -o -name '*.c' -o -name '*.html' \) -delete   # the compiled modules (setup.py)
