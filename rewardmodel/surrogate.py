"""The runtime surrogate: gradient-boosted trees on the feature rows, with an interval.

Target: log10 of the runtime (`log_time`), of the runtime over the task's
roofline bound (`log_ratio`), or of the runtime over the analytic estimate of the
launch's slowest pipe (`log_estimate`, `analyzer.models.time_estimate`);
`python -m rewardmodel eval` compares them and keeps one. Both bounds are in every
row (`log_roofline_s`, `log_time_estimate_s`), so `fit(X, y)` and `predict(X)`
take feature rows and milliseconds like any regressor. A base the trees need not
learn extrapolates to kernels unlike the training ones: trees cannot.

Uncertainty: quantile regression (10th and 90th percentile) gives each row an
interval width; because in-sample quantiles are too confident on a family the
model never saw, `fit` scales the widths by a factor chosen on out-of-family
folds (split conformal) so that the stated 80% interval covers 80% there.
Rows whose features are partly unknown get a further widening.

Every fit also sees each row with the ptxas-only features blanked, so one
model serves callers with and without a CUDA compiler.
"""
from __future__ import annotations

import io
import json
import math
import zipfile
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from analyzer._fresh import accelerator

from . import features as F

# the few-row tree walk as a C loop where it was built (setup.py); else _Forest's numpy walk
_forest_c = accelerator("rewardmodel._forest")

_ROOF = F.FEATURE_NAMES.index("log_roofline_s")
# the column a target is relative to (log10 seconds); log_time has none
TARGET_BASE = {"log_time": None, "log_ratio": _ROOF, "log_estimate": F.FEATURE_NAMES.index("log_time_estimate_s")}


class SchemaMismatch(ValueError):
    """A saved model was trained on a different feature schema."""


@dataclass(frozen=True)
class SurrogateConfig:
    target: str = "log_ratio"          # a key of TARGET_BASE
    n_estimators: int = 400
    quantile_estimators: int = 200     # the interval model: coarser than the point model, and cheaper
    max_depth: int = 6
    learning_rate: float = 0.06
    subsample: float = 0.8
    colsample_bytree: float = 0.8
    min_child_weight: float = 1.0
    reg_lambda: float = 1.0
    coverage: float = 0.8              # nominal coverage of the stated interval
    calibration_folds: int = 3         # out-of-family folds for the interval scale (0: no calibration)
    mask_ptxas_copies: bool = True
    update_weight: float = 3.0         # weight of new samples in update()
    update_rounds: int = 30            # trees added by update(mode="boost")
    seed: int = 0
    nthread: int = 0                   # 0: xgboost's default


@dataclass
class Interval:
    time_ms: np.ndarray
    lo_ms: np.ndarray
    hi_ms: np.ndarray


def roofline_ms(X: np.ndarray) -> np.ndarray:
    return 10.0 ** np.asarray(X)[:, _ROOF] * 1e3


def _target_col(target: str) -> int | None:
    if target not in TARGET_BASE:
        raise ValueError(f"unknown target {target!r}: choose one of {', '.join(TARGET_BASE)}")
    return TARGET_BASE[target]


def target_base(X: np.ndarray, target: str) -> np.ndarray | float:
    """log10 of the milliseconds a target is relative to (0.0 for log_time)."""
    col = _target_col(target)
    return 0.0 if col is None else np.asarray(X)[:, col] + 3.0


def _widen_one(unknown_share: float, bytes_known: float, assumed: float) -> float:
    """widen_factor of one row, on Python floats (missing values as 0), in its float64 order."""
    if math.isnan(unknown_share):
        unknown_share = 0.0
    if math.isnan(bytes_known):
        bytes_known = 0.0
    if math.isnan(assumed):
        assumed = 0.0
    return 1.0 + unknown_share + 1.0 * (1.0 - bytes_known) + 0.25 * min(assumed, 4.0)


def widen_factor(X: np.ndarray) -> np.ndarray:
    """Heuristic widening of the interval for rows the analyzer could not fully resolve."""
    X = np.asarray(X)
    cols = X[:, _WIDEN_COLS]
    if len(cols) <= _FEW_ROWS and cols.dtype == np.float64:
        # a reward call's row: the same float64 arithmetic, in the same order, on Python floats
        # (numpy's cost per call is most of the time for so few values)
        rows = cols.tolist()
        if not any(math.isinf(x) for r in rows for x in r):
            return np.array([_widen_one(*r) for r in rows], dtype=np.float64)
    if cols.dtype == np.float64 and not np.isinf(cols).any():
        cols[np.isnan(cols)] = 0.0    # np.nan_to_num's answer where nothing is infinite (~4x cheaper)
    else:
        cols = np.nan_to_num(cols, nan=0.0)
    unknown_share, bytes_known, assumed = cols[:, 0], cols[:, 1], cols[:, 2]
    return (1.0 + unknown_share + 1.0 * (1.0 - bytes_known)
            + 0.25 * np.minimum(assumed, 4.0))


_WIDEN_COLS = [F.FEATURE_NAMES.index(n) for n in ("unknown_share", "bytes_known", "assumed_params")]


class Surrogate:
    """fit / predict / predict_with_uncertainty / update / save / load."""

    def __init__(self, config: SurrogateConfig | None = None) -> None:
        self.config = config or SurrogateConfig()
        self._point = None
        self._quant = None
        self.scale_ = 1.0
        self.X_: np.ndarray | None = None
        self.y_: np.ndarray | None = None
        self.w_: np.ndarray | None = None
        self.groups_: np.ndarray | None = None
        self.info_: dict = {}
        self._forest_of = None         # (point, quant, their _Forest) for one-row predictions

    # ---------------------------------------------------------------- targets
    def _to_target(self, X, time_ms):
        return np.log10(np.asarray(time_ms, dtype=np.float64)) - target_base(X, self.config.target)

    def _from_target(self, X, t):
        return 10.0 ** (t + target_base(X, self.config.target))

    # ---------------------------------------------------------------- training
    def _params(self, quantile: bool) -> dict:
        c = self.config
        p = {"max_depth": c.max_depth, "eta": c.learning_rate, "subsample": c.subsample,
             "colsample_bytree": c.colsample_bytree, "min_child_weight": c.min_child_weight,
             "lambda": c.reg_lambda, "tree_method": "hist", "seed": c.seed, "verbosity": 0}
        if c.nthread:
            p["nthread"] = c.nthread
        if quantile:
            lo = (1.0 - c.coverage) / 2.0
            p.update(objective="reg:quantileerror", quantile_alpha=np.array([lo, 0.5, 1.0 - lo]))
        else:
            p.update(objective="reg:squarederror")
        return p

    def _train(self, X, t, w, quantile: bool):
        import xgboost as xgb

        if self.config.mask_ptxas_copies:
            X = np.vstack([X, F.mask_ptxas(X)])
            t = np.concatenate([t, t])
            w = np.concatenate([w, w])
        d = xgb.DMatrix(X, label=t, weight=w, feature_names=list(F.FEATURE_NAMES))
        rounds = self.config.quantile_estimators if quantile else self.config.n_estimators
        return xgb.train(self._params(quantile), d, num_boost_round=rounds)

    def _fit_arrays(self, X, t, w):
        point = self._train(X, t, w, quantile=False)
        quant = self._train(X, t, w, quantile=True)
        return point, quant

    def fit(self, X, time_ms, groups=None, sample_weight=None) -> "Surrogate":
        """X: feature rows (FEATURE_NAMES order); time_ms: measured medians; groups: family per row
        (the interval is calibrated on folds that hold out whole groups)."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != len(F.FEATURE_NAMES):
            raise ValueError(f"expected rows of {len(F.FEATURE_NAMES)} features, got shape {X.shape}")
        t = self._to_target(X, time_ms)
        w = np.ones(len(t)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        self.X_, self.y_, self.w_ = X, np.asarray(time_ms, dtype=np.float64), w
        self.groups_ = None if groups is None else np.asarray(groups, dtype=object)
        self._point, self._quant = self._fit_arrays(X, t, w)
        _single_thread(self._point, self._quant)
        self.scale_ = self._calibrate(X, t, w, self.groups_)
        self.info_ = {"rows": int(len(t)), "target": self.config.target}
        return self

    def _calibrate(self, X, t, w, groups) -> float:
        k = self.config.calibration_folds
        if not k or groups is None:
            return 1.0
        uniq = np.unique(groups)
        if len(uniq) < 2:
            return 1.0
        rng = np.random.default_rng(self.config.seed)
        folds = np.array_split(rng.permutation(uniq), min(k, len(uniq)))
        ratios = []
        for held in folds:
            test = np.isin(groups, held)
            if test.all() or not test.any():
                continue
            point, quant = self._fit_arrays(X[~test], t[~test], w[~test])
            p, lo, hi = _predict_raw(point, quant, X[test])
            half = np.maximum((hi - lo) / 2.0, 1e-3)
            ratios.append(np.abs(t[test] - p) / half)
        if not ratios:
            return 1.0
        r = np.concatenate(ratios)
        return float(max(1.0, np.quantile(r, self.config.coverage)))

    def update(self, X_new, time_ms_new, groups_new=None, mode: str = "refit") -> "Surrogate":
        """Learn from new measurements (weighted `update_weight`), keeping the calibrated interval scale
        (recalibrating on every RL batch would cost a refit per fold).

        mode "refit": fit again on the training rows plus the new ones (seconds on the corpus);
        mode "boost": add `update_rounds` trees to the point model, fit on the new rows' residuals
        (milliseconds; the new rows are kept, so a later refit includes them)."""
        if self.X_ is None:
            raise RuntimeError("update() before fit()")
        if mode not in ("refit", "boost"):
            raise ValueError(f"update mode must be 'refit' or 'boost', got {mode!r}")
        X_new = np.asarray(X_new, dtype=np.float64)
        y_new = np.asarray(time_ms_new, dtype=np.float64)
        X = np.vstack([self.X_, X_new])
        y = np.concatenate([self.y_, y_new])
        w = np.concatenate([self.w_, np.full(len(X_new), self.config.update_weight)])
        if self.groups_ is not None:
            g_new = np.asarray(groups_new if groups_new is not None else ["update"] * len(X_new), dtype=object)
            self.groups_ = np.concatenate([self.groups_, g_new])
        self.X_, self.y_, self.w_ = X, y, w
        if mode == "refit":
            self._point, self._quant = self._fit_arrays(X, self._to_target(X, y), w)
        else:
            import xgboost as xgb

            d = xgb.DMatrix(X_new, label=self._to_target(X_new, y_new), feature_names=list(F.FEATURE_NAMES))
            self._point = xgb.train(self._params(False), d, num_boost_round=self.config.update_rounds,
                                    xgb_model=self._point)
        _single_thread(self._point, self._quant)
        self.info_["rows"] = int(len(y))
        self.info_["updates"] = self.info_.get("updates", 0) + 1
        return self

    # ---------------------------------------------------------------- prediction
    def _check(self, X) -> np.ndarray:
        if self._point is None:
            raise RuntimeError("the surrogate is not fitted")
        X = np.atleast_2d(np.asarray(X, dtype=np.float64))
        if X.shape[1] != len(F.FEATURE_NAMES):
            raise ValueError(f"expected rows of {len(F.FEATURE_NAMES)} features, got shape {X.shape}")
        return X

    def predict(self, X) -> np.ndarray:
        """Predicted runtime in milliseconds."""
        X = self._check(X)
        return self._from_target(X, _predict_point(self._point, X))

    def predict_with_uncertainty(self, X) -> Interval:
        """Predicted runtime and its interval (nominal `coverage`), in milliseconds."""
        X = self._check(X)
        if len(X) == 1:
            one = self._one_row(X)
            if one is not None:
                return one
        p, lo, hi = _predict_raw(self._point, self._quant, X)
        half = np.maximum((hi - lo) / 2.0, 1e-3) * self.scale_ * widen_factor(X)
        b = target_base(X, self.config.target)   # _from_target's, computed once for the three
        return Interval(10.0 ** (p + b), 10.0 ** ((p - half) + b), 10.0 ** ((p + half) + b))

    def __getstate__(self) -> dict:
        # the forest cache holds C objects that do not pickle; it is rebuilt on first use
        return {k: v for k, v in self.__dict__.items() if k != "_forest_of"}

    def _one_row(self, X) -> Interval | None:
        """predict_with_uncertainty of a single row (a reward call's) on Python floats: the same
        float64 operations in the same order, and the one power through numpy as before, so the
        same bits; ~30 numpy calls on one-element arrays cost 3x the tree walk. None where it
        does not apply (no C walk, or an infinite input or output): the array path answers."""
        point, quant = self._point, self._quant
        hit = self.__dict__.get("_forest_of")
        if hit is None or hit[0] is not point or hit[1] is not quant:
            # boosters are replaced, never changed in place, by fit/update/load
            hit = self._forest_of = (point, quant, _Forest.of(point, quant))
        forest = hit[2]
        if forest is None or forest._walk is None:
            return None
        xs = X[0].tolist()
        if any(map(math.isinf, xs)):
            return None
        out = np.empty((1, len(forest.bases)), dtype=np.float32)
        forest._walk(X.astype(np.float32), out)
        o = out[0].tolist()[:1 + forest.split[1]]
        if not all(map(math.isfinite, o)):
            return None
        p, q = o[0], o[1:]
        lo, hi = min(q[0], p), max(q[2], p)
        half = max((hi - lo) / 2.0, 1e-3) * self.scale_ * _widen_one(*(xs[i] for i in _WIDEN_COLS))
        col = _target_col(self.config.target)
        b = 0.0 if col is None else xs[col] + 3.0
        v = 10.0 ** np.array([p + b, (p - half) + b, (p + half) + b])
        return Interval(v[0:1], v[1:2], v[2:3])

    # ---------------------------------------------------------------- persistence
    def save(self, path: str | Path) -> None:
        """One zip file: meta.json, the two boosters (UBJSON) and the training rows (for update())."""
        if self._point is None:
            raise RuntimeError("save() before fit()")
        meta = {"schema_version": F.SCHEMA_VERSION, "feature_names": list(F.FEATURE_NAMES),
                "config": asdict(self.config), "scale": self.scale_, "info": self.info_}
        buf = io.BytesIO()
        np.savez_compressed(buf, X=self.X_.astype(np.float32), y=self.y_, w=self.w_,
                            groups=np.array([] if self.groups_ is None else self.groups_, dtype=str),
                            has_groups=np.array(self.groups_ is not None))
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("meta.json", json.dumps(meta, indent=1))
            z.writestr("point.ubj", bytes(self._point.save_raw("ubj")))
            z.writestr("quantile.ubj", bytes(self._quant.save_raw("ubj")))
            z.writestr("data.npz", buf.getvalue())
        tmp.replace(path)

    @classmethod
    def load(cls, path: str | Path) -> "Surrogate":
        import xgboost as xgb

        path = Path(path)
        try:
            z = zipfile.ZipFile(path)
        except (OSError, zipfile.BadZipFile) as exc:
            raise ValueError(f"{path}: not a saved surrogate ({exc})") from None
        with z:
            meta = json.loads(z.read("meta.json"))
            if meta.get("schema_version") != F.SCHEMA_VERSION or meta.get("feature_names") != list(F.FEATURE_NAMES):
                raise SchemaMismatch(
                    f"{path}: trained on feature schema {meta.get('schema_version')}, this code has schema "
                    f"{F.SCHEMA_VERSION}; retrain it (make model)")
            known = {k: v for k, v in meta["config"].items() if k in SurrogateConfig.__dataclass_fields__}
            self = cls(SurrogateConfig(**known))
            self._point = xgb.Booster()
            self._point.load_model(bytearray(z.read("point.ubj")))
            self._quant = xgb.Booster()
            self._quant.load_model(bytearray(z.read("quantile.ubj")))
            _single_thread(self._point, self._quant)
            data = np.load(io.BytesIO(z.read("data.npz")), allow_pickle=False)
            self.X_, self.y_, self.w_ = data["X"].astype(np.float64), data["y"], data["w"]
            self.groups_ = data["groups"].astype(object) if bool(data["has_groups"]) else None
            self.scale_ = float(meta["scale"])
            self.info_ = meta.get("info", {})
        return self


# inplace_predict skips building a DMatrix: a single-row reward call is ~4x faster that way.
# Prediction runs on one thread: OpenMP workers spinning between calls slow the analyzer work
# in between by 10x on a small machine, and a batch of 1,000 rows takes milliseconds anyway.
def _single_thread(*boosters) -> None:
    for b in boosters:
        b.set_param({"nthread": 1})


def _predict_point(point, X):
    return np.asarray(point.inplace_predict(np.ascontiguousarray(X, dtype=np.float32)), dtype=np.float64)


def _predict_raw(point, quant, X):
    X32 = np.ascontiguousarray(X, dtype=np.float32)
    if 0 < len(X32) <= _FEW_ROWS:
        trees = _Forest.of(point, quant)
        if trees is not None and np.isfinite(X32[~np.isnan(X32)]).all():
            p, q = trees.predict(X32)
            lo, hi = np.minimum(q[:, 0], p), np.maximum(q[:, 2], p)
            return p, lo, hi
    p = np.asarray(point.inplace_predict(X32), dtype=np.float64)
    q = np.asarray(quant.inplace_predict(X32), dtype=np.float64).reshape(len(X32), -1)
    lo, hi = np.minimum(q[:, 0], p), np.maximum(q[:, 2], p)
    return p, lo, hi


# ---------------------------------------------------------------- few-row prediction
#
# A reward call predicts one row. XGBoost's inplace_predict costs ~0.12-0.15 ms a call on this
# model whatever the rows (parsing a JSON config and an array interface, building a model view,
# thread set-up: dmlc/xgboost#12311 measures the same), ~0.3 ms for the two models, and up to
# 1 ms when the analyzer's work in between has evicted the model from the caches; its
# maintainers point single-row users to their own evaluator (dmlc/xgboost#10148). `_Forest`
# walks the trees of both boosters (read from their JSON dump) for a few rows with numpy, one
# level of all 1,000 trees at a time, and adds the leaves as XGBoost does: in float32, tree by
# tree in model order, from the base score. The answers are XGBoost's, bit for bit (tests/test_rewardmodel_surrogate.py
# compares them on the training rows); batches still go to XGBoost.

_FEW_ROWS = 4


class _Forest:
    """Both boosters' trees as complete binary trees in heap order (a leaf above the last level
    is copied into every position under it, so the walk takes the same number of steps in all
    trees), in one set of arrays: internal positions hold a feature and a threshold, the last
    level the leaf values."""

    _cache: dict = {}

    @classmethod
    def of(cls, point, quant) -> "_Forest | None":
        """The forest of these two boosters (built once per pair of objects and their tree
        counts), or None where the models hold something this walk does not do (categorical
        splits, vector leaves, other boosters): those go to XGBoost."""
        key = (id(point), id(quant))
        rounds = (point.num_boosted_rounds(), quant.num_boosted_rounds())
        hit = cls._cache.get(key)
        if hit is not None and hit[0] is point and hit[1] is quant and hit[2] == rounds:
            return hit[3]
        try:
            forest = cls([_booster_trees(point), _booster_trees(quant)])
        except (_Unsupported, KeyError, ValueError, IndexError, TypeError):
            forest = None
        if len(cls._cache) >= 4:   # the latest models (an RL run updates them): older ones are let go
            cls._cache.clear()
        cls._cache[key] = (point, quant, rounds, forest)
        return forest

    def __init__(self, models: list[tuple[list, np.ndarray, np.ndarray, int]]) -> None:
        if len(models[0][2]) != 1:
            raise _Unsupported("a point model with several outputs")
        trees = [t for m in models for t in m[0]]
        depth = max((_depth(t[0], t[1]) for t in trees), default=0)
        self.depth = depth
        n_int, n_leaf = (1 << depth) - 1, 1 << depth
        T = len(trees)
        self.n_features = models[0][3]
        # all trees' nodes in one array (children and node ids offset by the tree's start)
        sizes = np.array([len(t[0]) for t in trees], dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        off = np.repeat(starts, sizes)
        left = np.concatenate([t[0] for t in trees])
        right = np.concatenate([t[1] for t in trees])
        leafnode = left == -1
        left = np.where(leafnode, -1, left + off)
        right = np.where(leafnode, -1, right + off)
        split_idx = np.concatenate([t[2] for t in trees])
        cond = np.concatenate([t[3] for t in trees])
        default_left = np.concatenate([t[4] for t in trees])
        feat = np.zeros((T, max(n_int, 1)), dtype=np.intp)
        thr = np.zeros((T, max(n_int, 1)), dtype=np.float32)
        nodes = starts[:, None]     # (T, positions of this level): the xgboost node there
        for lv in range(depth):
            is_leaf = leafnode[nodes]
            lo = (1 << lv) - 1
            # NaN (missing) goes to the default child: the row is looked up as NaN -> -inf
            # (columns n..2n-1) where the default is left, NaN -> +inf where it is right
            feat[:, lo:lo + nodes.shape[1]] = np.where(is_leaf, 0, split_idx[nodes] + default_left[nodes] * self.n_features)
            thr[:, lo:lo + nodes.shape[1]] = np.where(is_leaf, np.float32(0), cond[nodes])
            kids = np.empty((T, 2 * nodes.shape[1]), dtype=np.int64)
            kids[:, 0::2] = np.where(is_leaf, nodes, left[nodes])
            kids[:, 1::2] = np.where(is_leaf, nodes, right[nodes])
            nodes = kids
        if not leafnode[nodes].all():
            raise _Unsupported("a tree deeper than its depth")
        leaf = cond[nodes]
        if not np.isfinite(thr).all() or not np.isfinite(leaf).all():
            raise _Unsupported("non-finite split or leaf")
        self.rowbase = (np.arange(T, dtype=np.intp) * max(n_int, 1))
        # The walk reads a few bytes of each tree per level, scattered over these arrays, which
        # the analyzer's work between two reward calls evicts from the caches: they are kept
        # small (column numbers in one byte where they fit; no table of child positions).
        self.feat = feat.reshape(-1).astype(np.uint8 if 2 * self.n_features <= 256 else np.intp)
        self.thr = thr.reshape(-1)
        # the left child of flat position f of tree t (heap order): rowbase[t] + 2 * (f - rowbase[t]) + 1
        self.child_base = 1 - self.rowbase
        self.leaf = leaf.reshape(-1)
        # flat index after the last level (rowbase + heap position) -> slot in `leaf`
        self.leafshift = np.arange(T, dtype=np.intp) * n_leaf - n_int - self.rowbase
        # float32 sums, tree by tree in model order from the base score, one row per output
        outputs = []
        start = 0
        for trees_m, info, base, _ in models:
            for g in range(len(base)):
                outputs.append((float(base[g]), [start + i for i, gi in enumerate(info) if gi == g]))
            start += len(trees_m)
        width = 1 + max(len(ix) for _, ix in outputs)
        # -0.0 in front pads the shorter rows: -0.0 + x is x for every x (+0.0 would turn -0.0 into +0.0)
        self.pad = T + len(outputs)
        order = np.full((len(outputs), width), self.pad, dtype=np.intp)
        bases = np.zeros(len(outputs), dtype=np.float32)
        for o, (b, ix) in enumerate(outputs):
            bases[o] = b
            order[o, width - 1 - len(ix)] = T + o
            order[o, width - len(ix):] = ix
        self.bases = bases
        self.order = order
        self.split = [len(m[2]) for m in models]    # outputs per model
        # the C walk holds typed views of the arrays, taken once
        self._walk = (_forest_c.Walk(self.feat, self.thr, self.rowbase, self.child_base, self.leaf, self.leafshift,
                                     self.depth, self.order, self.bases)
                      if _forest_c is not None and self.feat.dtype == np.uint8 else None)

    def predict(self, X32: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(point predictions, quantile predictions (rows, 3)) as float64, as XGBoost gives them."""
        if self._walk is not None:
            out = np.empty((len(X32), len(self.bases)), dtype=np.float32)
            self._walk(X32, out)
            return out[:, 0].astype(np.float64), out[:, 1:1 + self.split[1]].astype(np.float64)
        return self.predict_numpy(X32)

    def predict_numpy(self, X32: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """`predict` in numpy (the C walk's reference, and what runs without it)."""
        p_out, q_out = [], []
        nan = np.isnan(X32)
        for x, miss in zip(X32, nan):
            row = np.concatenate([np.where(miss, np.float32(np.inf), x), np.where(miss, np.float32(-np.inf), x)])
            flat = self.rowbase
            for _ in range(self.depth):
                go = row.take(self.feat.take(flat)) >= self.thr.take(flat)   # not (x < split): right
                flat = 2 * flat + self.child_base + go
            vals = self.leaf.take(flat + self.leafshift)
            seq = np.concatenate([vals, self.bases, np.array([-0.0], dtype=np.float32)])
            sums = np.add.accumulate(seq.take(self.order), axis=1)[:, -1]
            p_out.append(sums[0])
            q_out.append(sums[1:1 + self.split[1]])
        return np.asarray(p_out, dtype=np.float32).astype(np.float64), \
            np.asarray(q_out, dtype=np.float32).astype(np.float64).reshape(len(X32), -1)


class _Unsupported(ValueError):
    pass


def _depth(left, right) -> int:
    depth, level = 0, np.array([0])
    while True:
        kids = np.concatenate([left[level], right[level]])
        kids = kids[kids != -1]
        if not len(kids):
            return depth
        depth += 1
        level = kids


def _booster_trees(booster):
    """(trees as (left, right, split index, condition or leaf value, default left), tree_info,
    base scores (float32), feature count) of a gbtree booster with scalar leaves."""
    # XGBoost writes each float32 in its shortest round-trip form: np.float32 of it is exact
    model = json.loads(bytes(booster.save_raw("json")))
    learner = model["learner"]
    gb = learner["gradient_booster"]
    if gb.get("name") != "gbtree":
        raise _Unsupported(gb.get("name"))
    tm = gb["model"]
    if int(tm["gbtree_model_param"]["num_parallel_tree"]) != 1:
        raise _Unsupported("num_parallel_tree")
    mp = learner["learner_model_param"]
    base = np.array([np.float32(float(v)) for v in str(mp["base_score"]).strip("[]").split(",")], dtype=np.float32)
    n_features = int(mp["num_feature"])
    obj = learner["objective"]["name"]
    if obj not in ("reg:squarederror", "reg:quantileerror", "reg:absoluteerror", "reg:pseudohubererror"):
        raise _Unsupported(obj)   # a transform of the margin this walk does not apply
    trees = []
    for t in tm["trees"]:
        if int(t["tree_param"]["size_leaf_vector"]) > 1 or (len(t["split_type"]) and np.any(np.asarray(t["split_type"]))):
            raise _Unsupported("vector leaves or categorical splits")
        left = np.asarray(t["left_children"], dtype=np.int64)
        right = np.asarray(t["right_children"], dtype=np.int64)
        trees.append((left, right, np.asarray(t["split_indices"], dtype=np.int64),
                      np.asarray(t["split_conditions"], dtype=np.float32),
                      np.asarray(t["default_left"], dtype=np.int64)))
    info = [int(i) for i in tm["tree_info"]]
    if len(info) != len(trees) or (info and max(info) >= len(base)):
        raise _Unsupported("tree_info")
    return trees, info, base, n_features


DEFAULT_MODEL = Path(__file__).resolve().parent / "default_model.zip"


def load_default() -> Surrogate:
    if not DEFAULT_MODEL.exists():
        raise FileNotFoundError(f"no default model at {DEFAULT_MODEL}: run `make model`")
    return Surrogate.load(DEFAULT_MODEL)
