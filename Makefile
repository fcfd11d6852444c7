# make demo : create .venv, install stablecost and every runtime dependency, run the main job
#             (the bundled examples on several chips; learned vs roofline on host-cpu)
# make test : same set-up, then the test suite (with Ray: the `collect --ray` tests start a
#             local cluster of two nodes)
# make lint : same set-up, then ruff and mypy (the [tool.mypy] config in pyproject.toml)
# On a machine with an NVIDIA GPU: make EXTRA=gpu demo (full xgboost instead of xgboost-cpu).
# The install includes the torch extra (torch-mlir, for PyTorch programs) and the ray extra
# (collect --ray) so that their tests run.

PYTHON ?= python3
VENV   ?= .venv
EXTRA  ?= cpu
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.stablecost-installed-$(EXTRA)
# mypy finds the package by name: the editable install is an import hook, which mypy
# cannot follow, and the checkout's directory need not be called stablecost; a link
# named stablecost to the checkout, in a directory of its own, is what mypy reads.
MYPY_ROOT ?= $(VENV)/mypy-root

.PHONY: demo test lint install examples clean

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check \
		-c constraints.txt -e ".[$(EXTRA),dev,torch,ray]"
	touch $@

demo: $(STAMP)
	$(BIN)/stablecost hardware list
	$(BIN)/stablecost analyze examples/programs/transformer_block_train_step.mlir
	$(BIN)/stablecost predict examples/programs/transformer_block_train_step.mlir \
		--hardware H100-SXM,TPU-v5p,MI300X --top 8
	$(BIN)/stablecost predict examples/programs/resnet_cnn_train_step.mlir \
		--hardware H100-SXM,A100-SXM-80GB,TPU-v5e --top 5
	$(BIN)/stablecost predict examples/programs/mlp_train_step.mlir \
		--hardware H100-SXM,L4,TPU-v4 --top 5
	$(BIN)/stablecost predict examples/programs/transformer_block_train_step.mlir \
		--hardware host-cpu --fidelity all --top 5
	$(BIN)/stablecost predict examples/programs/resnet_cnn_train_step.mlir \
		--hardware host-cpu --fidelity all --top 5
	$(BIN)/stablecost predict examples/programs/transformer_shard_map_8dev.mlir \
		--hardware H100-SXM,TPU-v5e --top 5
	$(BIN)/stablecost predict examples/programs/transformer_annotated_8dev.mlir \
		--hardware H100-SXM,TPU-v5e --mesh data=4,model=2 --top 5

test: $(STAMP)
	$(BIN)/python -m pytest -q -m 'slow or not slow'

lint: $(STAMP)
	$(BIN)/ruff check .
	mkdir -p $(MYPY_ROOT) && ln -sfn $(CURDIR) $(MYPY_ROOT)/stablecost
	cd $(MYPY_ROOT) && $(abspath $(BIN))/python -m mypy \
		--config-file $(CURDIR)/pyproject.toml -p stablecost

examples: $(STAMP)
	$(BIN)/python examples/export_programs.py
	$(BIN)/python examples/export_distributed.py

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache
