#!/usr/bin/python3
"""Offline check of deploy/kubernetes (run by tests/deploy/kubernetes.sh).

Walks every YAML document named by kustomization.yaml against the Kubernetes API
model of its kind, as Debian's python3-kubernetes ships it (each model class has
openapi_types: attribute -> type, and attribute_map: attribute -> JSON field):
unknown fields and wrong types are errors, and so are missing required fields
(the model's own constructor refuses them). Then the references between objects:
selectors match pod labels, Services and probes name container ports that exist,
every volume is mounted and every mount has a volume, Secrets are generated, files
named in the arguments exist in the mounted Secrets, the worker's --connect names a
Service port, and each container's CPU and memory match its --threads and --hash.

Usage: k8s_validate.py DIR. Prints each error as FILE: KIND/NAME: PATH: what; exit
status 0 clean, 1 errors, 2 usage or unreadable input.
"""
import difflib
import os
import re
import sys

import yaml
import kubernetes.client as kc
from kubernetes.client import ApiClient

errors = []


def err(where, msg):
    errors.append(f"{where}: {msg}")


# Kinds this deployment may use: apiVersion, kind -> model class name.
MODELS = {
    ("v1", "Namespace"): "V1Namespace",
    ("v1", "Service"): "V1Service",
    ("v1", "Secret"): "V1Secret",
    ("v1", "ConfigMap"): "V1ConfigMap",
    ("v1", "PersistentVolumeClaim"): "V1PersistentVolumeClaim",
    ("apps/v1", "StatefulSet"): "V1StatefulSet",
    ("apps/v1", "Deployment"): "V1Deployment",
    ("batch/v1", "Job"): "V1Job",
}
# Fields whose values are Kubernetes quantities: a YAML number is a valid one.
QUANTITY_MAPS = {"limits", "requests", "capacity"}


def check_type(value, typ, path, where, attr=""):
    """Checks @value (parsed YAML) against the openapi type string @typ."""
    if typ == "object":  # IntOrString and free-form: anything but null
        if value is None:
            err(where, f"{path}: null")
        return
    if typ.startswith("list["):
        if not isinstance(value, list):
            err(where, f"{path}: a list expected, not {type(value).__name__}")
            return
        for i, v in enumerate(value):
            check_type(v, typ[5:-1], f"{path}[{i}]", where)
        return
    if typ.startswith("dict("):
        if not isinstance(value, dict):
            err(where, f"{path}: a mapping expected, not {type(value).__name__}")
            return
        vt = typ[typ.index(",") + 1:-1].strip()
        for k, v in value.items():
            if not isinstance(k, str):
                err(where, f"{path}: key {k!r} is not a string")
            if vt == "str" and attr in QUANTITY_MAPS and isinstance(v, (int, float)) \
                    and not isinstance(v, bool):
                continue
            check_type(v, vt, f"{path}.{k}", where)
        return
    scalars = {"str": (str,), "int": (int,), "bool": (bool,), "float": (int, float),
               "datetime": (str,), "date": (str,)}
    if typ in scalars:
        ok = isinstance(value, scalars[typ]) and not (typ in ("int", "float") and isinstance(value, bool))
        if not ok:
            err(where, f"{path}: {typ} expected, not {type(value).__name__} {value!r}")
        return
    cls = getattr(kc, typ, None)
    if cls is None:
        err(where, f"{path}: unknown model type {typ}")
        return
    if not isinstance(value, dict):
        err(where, f"{path}: a {typ} mapping expected, not {type(value).__name__}")
        return
    json_to_attr = {j: a for a, j in cls.attribute_map.items()}
    for k, v in value.items():
        if k not in json_to_attr:
            near = difflib.get_close_matches(str(k), list(json_to_attr), n=1)
            hint = f" (did you mean {near[0]}?)" if near else ""
            err(where, f"{path}.{k}: unknown field of {typ}{hint}")
            continue
        a = json_to_attr[k]
        check_type(v, cls.openapi_types[a], f"{path}.{k}", where, a)


def check_required(doc, cls_name, where):
    """The model's own constructor refuses a missing required field."""
    try:
        ApiClient()._ApiClient__deserialize(doc, cls_name)
    except (ValueError, TypeError) as e:
        err(where, f"invalid {cls_name}: {e}")


def load(dir_):
    kfile = os.path.join(dir_, "kustomization.yaml")
    try:
        with open(kfile) as f:
            kust = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        print(f"k8s_validate: {kfile}: {e}", file=sys.stderr)
        sys.exit(2)
    known = {"apiVersion", "kind", "namespace", "resources", "images", "secretGenerator",
             "configMapGenerator", "generatorOptions", "labels", "commonLabels",
             "commonAnnotations", "patches", "replicas"}
    for k in kust:
        if k not in known:
            err("kustomization.yaml", f"unknown field {k}")
    if kust.get("kind") != "Kustomization":
        err("kustomization.yaml", "kind is not Kustomization")
    secrets = {}  # name -> set of keys
    for g in kust.get("secretGenerator", []) or []:
        keys = set()
        for f in g.get("files", []) or []:
            key, _, path = f.partition("=") if "=" in f else (os.path.basename(f), "", f)
            keys.add(key)
            if os.path.isabs(path) or ".." in path.split("/"):
                err("kustomization.yaml", f"secretGenerator {g.get('name')}: {path} outside the directory")
        for lit in g.get("literals", []) or []:
            keys.add(lit.split("=", 1)[0])
        secrets[g.get("name")] = keys
    docs = []
    for r in kust.get("resources", []) or []:
        path = os.path.join(dir_, r)
        try:
            with open(path) as f:
                for d in yaml.safe_load_all(f):
                    if d is not None:
                        docs.append((r, d))
        except (OSError, yaml.YAMLError) as e:
            err(r, f"cannot read: {e}")
    return kust, secrets, docs


def pods(docs):
    """(where, workload name, selector labels, template) of each workload."""
    out = []
    for fname, d in docs:
        if d.get("kind") in ("StatefulSet", "Deployment", "Job"):
            spec = d.get("spec") or {}
            tpl = spec.get("template") or {}
            sel = (spec.get("selector") or {}).get("matchLabels") or {}
            out.append((f"{fname}: {d['kind']}/{d['metadata'].get('name')}", d, sel, tpl))
    return out


def quantity(q):
    """A CPU or memory quantity as a number (cores, bytes)."""
    s = str(q)
    units = {"m": 1e-3, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40,
             "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
    m = re.fullmatch(r"([0-9.]+)([A-Za-z]*)", s)
    if not m or (m.group(2) and m.group(2) not in units):
        return None
    return float(m.group(1)) * (units[m.group(2)] if m.group(2) else 1)


def arg_value(args, name):
    for i, a in enumerate(args):
        if a == name and i + 1 < len(args):
            return args[i + 1]
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return None


def cross_checks(secrets, docs):
    services = {}
    for fname, d in docs:
        if d.get("kind") == "Service":
            services[d["metadata"]["name"]] = (fname, d)
        if d.get("kind") == "Secret":
            secrets[d["metadata"]["name"]] = set((d.get("data") or {}) | (d.get("stringData") or {}))
    workloads = pods(docs)
    for where, d, sel, tpl in workloads:
        labels = (tpl.get("metadata") or {}).get("labels") or {}
        if not sel or any(labels.get(k) != v for k, v in sel.items()):
            err(where, f"selector {sel} does not match the pod labels {labels}")
        spec = tpl.get("spec") or {}
        volumes = {v.get("name"): v for v in spec.get("volumes") or []}
        if d["kind"] == "StatefulSet":
            for c in d["spec"].get("volumeClaimTemplates") or []:
                volumes[c["metadata"]["name"]] = {"claim": True}
            sn = d["spec"].get("serviceName")
            if sn not in services:
                err(where, f"serviceName {sn}: no such Service")
            elif services[sn][1]["spec"].get("clusterIP") != "None":
                err(where, f"serviceName {sn}: not a headless Service (clusterIP: None)")
        mounted = set()
        for c in spec.get("containers") or []:
            cw = f"{where}: container {c.get('name')}"
            ports = {p.get("name") for p in c.get("ports") or []}
            for p in c.get("ports") or []:
                if not p.get("name"):
                    err(cw, f"port {p.get('containerPort')} has no name")
            for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
                pr = c.get(probe) or {}
                for act in ("tcpSocket", "httpGet", "grpc"):
                    port = (pr.get(act) or {}).get("port")
                    if isinstance(port, str) and port not in ports:
                        err(cw, f"{probe}: no container port named {port}")
            mounts = {}
            for m in c.get("volumeMounts") or []:
                mounted.add(m.get("name"))
                if m.get("name") not in volumes:
                    err(cw, f"volumeMount {m.get('name')}: no such volume")
                mounts[m.get("mountPath")] = volumes.get(m.get("name"))
            args = [str(a) for a in (c.get("command") or []) + (c.get("args") or [])]
            # Files named in the arguments: under a mount, and a key of its Secret.
            for a in args:
                if not a.startswith("/etc/"):
                    continue
                base = max((p for p in mounts if p and (a == p or a.startswith(p.rstrip("/") + "/"))),
                           key=len, default=None)
                if base is None:
                    err(cw, f"argument {a}: not under any volumeMount")
                    continue
                vol = mounts[base] or {}
                sec = (vol.get("secret") or {}).get("secretName")
                rest = a[len(base):].strip("/")
                if sec is not None:
                    if sec not in secrets:
                        err(cw, f"volume {vol.get('name')}: no Secret named {sec}")
                    elif rest and rest not in secrets[sec]:
                        err(cw, f"argument {a}: Secret {sec} has no key {rest} (has {sorted(secrets[sec])})")
            # --connect tcp://SERVICE:PORT names a Service port.
            conn = arg_value(args, "--connect")
            if conn:
                m = re.fullmatch(r"tcp://([^:/]+):([0-9]+)", conn)
                svc = services.get(m.group(1)) if m else None
                if not svc:
                    err(cw, f"--connect {conn}: no Service of that name")
                elif int(m.group(2)) not in [p.get("port") for p in svc[1]["spec"].get("ports") or []]:
                    err(cw, f"--connect {conn}: Service {m.group(1)} has no port {m.group(2)}")
            # Resources that fit the worker's --threads and --hash.
            res = c.get("resources") or {}
            req, lim = res.get("requests") or {}, res.get("limits") or {}
            threads, hash_ = arg_value(args, "--threads"), arg_value(args, "--hash")
            if threads is not None:
                for kind, rl in (("requests", req), ("limits", lim)):
                    if quantity(rl.get("cpu", "0")) != float(threads):
                        err(cw, f"resources.{kind}.cpu {rl.get('cpu')} is not --threads {threads}")
            if hash_ is not None:
                need = (int(hash_) + 128) * 2**20
                for kind, rl in (("requests", req), ("limits", lim)):
                    q = quantity(rl.get("memory", "0"))
                    if q is None or q < need:
                        err(cw, f"resources.{kind}.memory {rl.get('memory')} is below --hash {hash_} MiB + 128 MiB")
            if not req or not lim:
                err(cw, "no resources.requests and limits")
        for name, v in volumes.items():
            if name not in mounted:
                err(where, f"volume {name} is mounted by no container")
            sec = (v.get("secret") or {}).get("secretName")
            if sec is not None and sec not in secrets:
                err(where, f"volume {name}: no Secret named {sec}")
    for name, (fname, s) in services.items():
        sel = s["spec"].get("selector") or {}
        target = [w for w in workloads
                  if all(((w[3].get("metadata") or {}).get("labels") or {}).get(k) == v for k, v in sel.items())]
        if not sel or not target:
            err(f"{fname}: Service/{name}", f"selector {sel} matches no pod template")
            continue
        names = {p.get("name") for w in target for c in w[3]["spec"].get("containers") or []
                 for p in c.get("ports") or []}
        for p in s["spec"].get("ports") or []:
            if not p.get("name"):
                err(f"{fname}: Service/{name}", f"port {p.get('port')} has no name")
            tp = p.get("targetPort")
            if isinstance(tp, str) and tp not in names:
                err(f"{fname}: Service/{name}", f"targetPort {tp}: no container port of that name")


def main():
    if len(sys.argv) != 2:
        print("usage: k8s_validate.py DIR", file=sys.stderr)
        return 2
    kust, secrets, docs = load(sys.argv[1])
    for fname, d in docs:
        key = (d.get("apiVersion"), d.get("kind"))
        where = f"{fname}: {d.get('kind')}/{(d.get('metadata') or {}).get('name')}"
        if key not in MODELS:
            err(where, f"unexpected apiVersion/kind {key[0]}/{key[1]}")
            continue
        check_type(d, MODELS[key], "", where)
        check_required(d, MODELS[key], where)
    if not errors:
        cross_checks(secrets, docs)
    for e in errors:
        print(e)
    print(f"k8s_validate: {len(docs)} objects, {len(errors)} error(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
