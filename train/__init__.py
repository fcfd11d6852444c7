"""The offline branch's second half: fit the learned models (XGBoost per kernel, GNN per
step) and the collective link values on datasets, evaluate them, track runs in MLflow."""
