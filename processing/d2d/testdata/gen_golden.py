#!/usr/bin/python3
"""Golden files for processing/d2d's tests, made with the field's tools.

Run from this folder with the challenge's repository as the argument:

    /usr/bin/python3 gen_golden.py /path/to/Cryo-EM-Heterogeneity-Challenge-1

(a checkout or `git archive` of github.com/flatironinstitute/
Cryo-EM-Heterogeneity-Challenge-1; voxlab's goldens were made at commit
11a0eb1e9a28c6a677ca2db38f5eb5546465ef0b). Needs Debian's python3-numpy,
python3-scipy, python3-pandas, python3-pot and python3-torch. It writes:

- challenge/: the challenge's own test data for this pipeline, as voxlab
  reads it: l2.npy (the cost matrix of tests/data/data_for_dist_to_dist/
  test_map_to_map_distance_matrix_submission_0.pkl, float64), populations.txt
  (its user_submitted_populations) and metadata.csv (tests/data/Ground_truth/
  test_metadata_10.csv, copied);
- golden_d2d.json: the challenge's own _distribution_to_distribution.run on
  that data with tests/config_files/test_config_distribution_to_distribution.yaml,
  and on synthetic cases (ties in the costs, more maps). cvxpy is not in
  Debian: its optimal_q_emd_vec is replaced by the same linear programme
  solved with scipy.optimize.linprog (HiGHS); the output validators, which
  need pydantic, are replaced by no-ops. Everything else is the challenge's
  code as it is, run unchanged: numpy's legacy RNG, rankdata, ot.emd, the
  KL iteration;
- golden_emd.json: ot.emd2 on random transport problems;
- golden_rng.json: np.random.seed(s); np.random.choice(np.arange(m), k,
  replace=False), sorted.
"""
import importlib.util
import json
import os
import pickle
import shutil
import sys
import tempfile
import types

import numpy as np
import ot
import pandas as pd
import torch
from scipy.optimize import linprog

here = os.path.dirname(os.path.abspath(__file__))


def linprog_optimal_q(p, cost, **kwargs):
    """optimal_q_emd_vec's programme: variables q (L) then T (R x L) row-major."""
    R, L = cost.shape
    nv = L + R * L
    c = np.zeros(nv)
    c[L:] = cost.flatten()
    A, b = [], []
    for r in range(R):  # row sums of T are p
        row = np.zeros(nv)
        row[L + r * L:L + (r + 1) * L] = 1
        A.append(row)
        b.append(p[r])
    for l in range(L):  # column sums of T are q
        row = np.zeros(nv)
        row[L + l::L] = 1
        row[l] = -1
        A.append(row)
        b.append(0)
    row = np.zeros(nv)
    row[:L] = 1
    A.append(row)
    b.append(1)
    res = linprog(c, A_eq=np.array(A), b_eq=np.array(b), bounds=(0, None), method="highs")
    assert res.status == 0, res.message
    T = res.x[L:].reshape(R, L)
    return T.sum(0), T, res.x, types.SimpleNamespace(value=res.fun), 0.0


def load_challenge(repo):
    """The challenge's distribution_to_distribution module, with stubs for
    what Debian lacks (cvxpy, pydantic)."""
    for name in ["cryo_challenge", "cryo_challenge._distribution_to_distribution",
                 "cryo_challenge.data", "cryo_challenge.data._validation"]:
        m = types.ModuleType(name)
        m.__path__ = []
        sys.modules[name] = m
    ot_mod = types.ModuleType("cryo_challenge._distribution_to_distribution.optimal_transport")
    ot_mod.optimal_q_emd_vec = linprog_optimal_q
    sys.modules[ot_mod.__name__] = ot_mod
    val = types.ModuleType("cryo_challenge.data._validation.output_validators")
    val.DistributionToDistributionResultsValidator = types.SimpleNamespace(from_dict=lambda d: None)
    sys.modules[val.__name__] = val
    name = "cryo_challenge._distribution_to_distribution.distribution_to_distribution"
    path = os.path.join(repo, "src/cryo_challenge/_distribution_to_distribution/distribution_to_distribution.py")
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def run_case(d2d, cost, pops, meta, cfg, tmp):
    """Runs the challenge's run() on one cost matrix (metric l2) and returns
    its results in the shape golden_d2d.json holds them."""
    sub = os.path.join(tmp, "sub.pt")
    torch.save({"id": "golden"}, sub)
    data = {"config": {"data": {"submission": {"fname": sub}}},
            "user_submitted_populations": pops,
            "l2": {"cost_matrix": pd.DataFrame(cost)}}
    inp, metaf, outf = (os.path.join(tmp, n) for n in ("in.pkl", "meta.csv", "out.pkl"))
    with open(inp, "wb") as f:
        pickle.dump(data, f)
    meta.to_csv(metaf, index=False)
    config = dict(cfg, input_fname=inp, gt_metadata_fname=metaf, output_fname=outf, metrics=["l2"], cvxpy_solver="HIGHS")
    res = d2d.run(config)
    order = pd.read_csv(metaf).sort_values("pc1").index.tolist()
    m = cost.shape[0]
    reps = []
    for r in range(cfg["n_replicates"]):
        rr = res["l2"]["replicates"][r]
        np.random.seed(r)
        idxs = np.sort(np.random.choice(np.arange(m), size=int(cfg["replicate_fraction"] * m), replace=False))
        reps.append({
            "rows": idxs.tolist(),
            "emd_opt": float(rr["EMD"]["EMD_opt"]),
            "emd_submitted": float(rr["EMD"]["EMD_submitted"]),
            "q_opt_kl": rr["KL"]["q_opt"].tolist(),
            "klpq_opt": float(rr["KL"]["klpq_opt"]),
            "klqp_opt": float(rr["KL"]["klqp_opt"]),
            "klpq_submitted": float(rr["KL"]["klpq_submitted"]),
            "klqp_submitted": float(rr["KL"]["klqp_submitted"]),
            "iter_stop": int(rr["KL"]["iter_stop"]),
            "eps_stop": float(rr["KL"]["eps_stop"]),
            "A": rr["KL"]["A"].tolist(),
        })
    return {"order": order, "replicates": reps}


def synthetic(rng, m, n, levels):
    """A cost matrix (integer levels make ties), populations and metadata."""
    cost = rng.integers(0, levels, size=(m, n)).astype(float) if levels else rng.random((m, n)) * 100
    pops = rng.dirichlet(np.ones(n))
    gt = rng.dirichlet(np.ones(m))
    meta = pd.DataFrame({"volumes": [f"{i:05d}.mrc" for i in range(m)], "pc1": rng.normal(size=m) * 100, "populations": gt})
    return cost, pops, meta


def main(repo):
    d2d = load_challenge(repo)
    tests = os.path.join(repo, "tests")
    with open(os.path.join(tests, "data/data_for_dist_to_dist/test_map_to_map_distance_matrix_submission_0.pkl"), "rb") as f:
        data = pickle.load(f)
    cost = data["l2"]["cost_matrix"].values.astype(np.float64)
    pops = np.asarray(data["user_submitted_populations"], dtype=np.float64)
    os.makedirs(os.path.join(here, "challenge"), exist_ok=True)
    np.save(os.path.join(here, "challenge/l2.npy"), cost)
    np.savetxt(os.path.join(here, "challenge/populations.txt"), pops, fmt="%.17g")
    shutil.copy(os.path.join(tests, "data/Ground_truth/test_metadata_10.csv"), os.path.join(here, "challenge/metadata.csv"))
    meta = pd.read_csv(os.path.join(here, "challenge/metadata.csv"))
    test_cfg = {"n_replicates": 3, "n_pool_microstate": 2, "replicate_fraction": 0.9,
                "optimal_q_kl": {"n_iter": 100000, "break_atol": 0.0001}}
    rng = np.random.default_rng(36)
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        c = run_case(d2d, cost, np.loadtxt(os.path.join(here, "challenge/populations.txt")), meta, test_cfg, tmp)
        cases.append(dict(c, name="challenge", config=test_cfg))
        for name, m, n, levels, cfg in [
            ("ties", 37, 6, 4, {"n_replicates": 4, "n_pool_microstate": 3, "replicate_fraction": 0.8,
                                "optimal_q_kl": {"n_iter": 5000, "break_atol": 0.0001}}),
            ("wide", 120, 15, 0, {"n_replicates": 3, "n_pool_microstate": 5, "replicate_fraction": 0.9,
                                  "optimal_q_kl": {"n_iter": 100000, "break_atol": 0.0001}}),
        ]:
            cost_s, pops_s, meta_s = synthetic(rng, m, n, levels)
            c = run_case(d2d, cost_s, pops_s, meta_s, cfg, tmp)
            cases.append(dict(c, name=name, config=cfg, cost=cost_s.tolist(), populations=pops_s.tolist(),
                              gt_populations=meta_s.populations.tolist(), pc1=meta_s.pc1.tolist()))
    with open(os.path.join(here, "golden_d2d.json"), "w") as f:
        json.dump(cases, f)

    emd = []
    for m, n, ties in [(1, 1, False), (1, 5, False), (7, 1, False), (5, 4, False), (12, 9, True),
                       (40, 25, False), (60, 80, True), (150, 30, False)]:
        a, b = rng.dirichlet(np.ones(m)), rng.dirichlet(np.ones(n))
        if m > 3:
            a[rng.integers(m)] = 0  # an empty bin
            a /= a.sum()
        c = rng.integers(0, 5, size=(m, n)).astype(float) if ties else rng.random((m, n)) * 10
        emd.append({"a": a.tolist(), "b": b.tolist(), "cost": c.tolist(), "emd2": float(ot.emd2(a, b, c, numItermax=10**6))})
    with open(os.path.join(here, "golden_emd.json"), "w") as f:
        json.dump(emd, f)

    draws = []
    for seed, m, k in [(0, 10, 9), (1, 10, 9), (2, 10, 9), (7, 1000, 900), (29, 3315, 2983), (5, 2, 1), (3, 20000, 100)]:
        np.random.seed(seed)
        idx = np.sort(np.random.choice(np.arange(m), size=k, replace=False))
        draws.append({"seed": seed, "m": m, "k": k, "rows": idx.tolist()})
    with open(os.path.join(here, "golden_rng.json"), "w") as f:
        json.dump(draws, f)


if __name__ == "__main__":
    main(sys.argv[1])
