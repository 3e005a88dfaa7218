#!/usr/bin/env python3
# varlink-idl.py SOCKET [CALL...]: checks the daemon's replies against the
# interface description it serves (GetInterfaceDescription of io.coresched).
# Each CALL is a JSON array [METHOD, PARAMETERS]; its reply must have every
# field the IDL gives the method's output, of the IDL's type (null only
# where the type is ?T), and no field the IDL lacks. Every method the IDL
# names must be served (not MethodNotFound). Prints one line per mismatch;
# exits 1 when there is any, 2 when the daemon cannot be asked.
import json
import re
import socket
import sys


def call(path, method, params):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(path)
    s.sendall(json.dumps({"method": method, "parameters": params}).encode() + b"\0")
    buf = b""
    while not buf.endswith(b"\0"):
        d = s.recv(65536)
        if not d:
            break
        buf += d
    s.close()
    return json.loads(buf.rstrip(b"\0"))


def top_level(s, sep=","):
    """s split at sep outside parentheses."""
    out, depth, cur = [], 0, ""
    for ch in s:
        depth += (ch == "(") - (ch == ")")
        if ch == sep and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return out


def fields(body):
    res = {}
    for f in top_level(body):
        name, typ = f.split(":", 1)
        res[name.strip()] = typ.strip()
    return res


def group_after(text, i):
    """The text inside the parentheses that open at or after i, and the end."""
    i = text.index("(", i) + 1
    depth, start = 1, i
    while depth:
        depth += (text[i] == "(") - (text[i] == ")")
        i += 1
    return text[start:i - 1], i


def parse(idl):
    text = "\n".join(line.split("#", 1)[0] for line in idl.splitlines())
    types, methods = {}, {}
    for m in re.finditer(r"\btype\s+(\w+)\s*\(", text):
        types[m.group(1)] = fields(group_after(text, m.start())[0])
    for m in re.finditer(r"\bmethod\s+(\w+)\s*\(", text):
        _, end = group_after(text, m.start())
        methods[m.group(1)] = fields(group_after(text, text.index("->", end))[0])
    return types, methods


errors = []


def check(v, typ, types, where):
    if typ.startswith("?"):
        if v is None:
            return
        typ = typ[1:]
    if v is None:
        errors.append(f"{where}: null, but the IDL says {typ}")
    elif typ.startswith("[]"):
        if not isinstance(v, list):
            errors.append(f"{where}: not an array")
            return
        for i, x in enumerate(v):
            check(x, typ[2:], types, f"{where}[{i}]")
    elif typ in types:
        check_object(v, types[typ], types, where)
    elif typ.startswith("("):
        check_object(v, fields(typ[1:-1]), types, where)
    else:
        ok = {
            "string": lambda x: isinstance(x, str),
            "int": lambda x: isinstance(x, int) and not isinstance(x, bool),
            "float": lambda x: isinstance(x, (int, float)) and not isinstance(x, bool),
            "bool": lambda x: isinstance(x, bool),
            "object": lambda x: True,
        }.get(typ)
        if not ok:
            errors.append(f"{where}: the IDL's type {typ} is not known")
        elif not ok(v):
            errors.append(f"{where}: {json.dumps(v)[:60]} is not {typ}")


def check_object(v, fs, types, where):
    if not isinstance(v, dict):
        errors.append(f"{where}: not an object")
        return
    for k, t in fs.items():
        if k in v:
            check(v[k], t, types, f"{where}.{k}")
        elif not t.startswith("?"):
            errors.append(f"{where}.{k}: missing")
    for k in v:
        if k not in fs:
            errors.append(f"{where}.{k}: not in the IDL")


def main():
    path = sys.argv[1]
    try:
        desc = call(path, "org.varlink.service.GetInterfaceDescription", {"interface": "io.coresched"})
        types, methods = parse(desc["parameters"]["description"])
    except (OSError, ValueError, KeyError) as e:
        print(f"cannot read the interface description: {e}")
        return 2
    for name in methods:
        r = call(path, "io.coresched." + name, {})
        if r.get("error") == "org.varlink.service.MethodNotFound":
            errors.append(f"{name}: in the IDL, not served")
    for arg in sys.argv[2:]:
        c = json.loads(arg)
        name, params = c[0], c[1] if len(c) > 1 else {}
        r = call(path, "io.coresched." + name, params)
        if r.get("error") == "org.varlink.service.MethodNotFound":
            errors.append(f"{name}: not served")
        elif name not in methods:
            errors.append(f"{name}: served (answered {r.get('error', 'a reply')}), not in the IDL")
        elif "error" in r:
            errors.append(f"{name}: {r['error']} {json.dumps(r.get('parameters'))}")
        else:
            check_object(r.get("parameters", {}), methods[name], types, name)
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
