"""Training of learned cost models (XGBoost per kernel, GNN per step) with MLflow
tracking. Empty until the learned-models issue lands; nothing here is used yet."""
