"""cudaperf's reward model: features, the surrogate, and the reward built on the analyzer."""
import analyzer  # noqa: F401  (its import hook: an edited source wins over a stale compiled module)
