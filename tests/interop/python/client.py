#!/usr/bin/python3
"""A gRPC client built on Debian's python3-grpcio (independent of the service's own binding).

usage: /usr/bin/python3 client.py HOST:PORT package.Service/Method 'REQUEST-JSON'
                                  [--metadata key=value]... [--deadline-ms N]

No code is generated: the request and response message layouts are read from the .proto files of
src/Contracts/Protos and tests/interop/protos with a small parser that understands exactly what those files use (flat
messages of scalars, nested messages, enums, repeated and optional fields), and messages are
encoded and decoded by hand in the protobuf wire format. Prints one JSON line:
  {"ok": true, "response": {...}}    fields named as in the .proto; int64 as strings, as proto3 JSON
  {"ok": false, "code": 5, "codeName": "NOT_FOUND", "details": "..."}
Exits 0 in both cases, 2 on a usage error.
"""
import json
import os
import re
import sys

import grpc

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO_DIRS = [os.path.join(HERE, "..", "..", "..", "src", "Contracts", "Protos"), os.path.join(HERE, "..", "protos")]
SCALARS = {"int32", "int64", "uint32", "uint64", "bool", "string", "bytes", "enum"}
# google/protobuf/timestamp.proto is imported, not in the folder: its layout is fixed by the spec.
WELL_KNOWN = {"google.protobuf.Timestamp": {"seconds": (1, "int64", False), "nanos": (2, "int32", False)}}


def parse_protos(folders):
    """message full name -> {field: (number, type, repeated)}; enum names -> {number: name}; rpc paths."""
    messages, enums, methods = dict(WELL_KNOWN), {}, {}
    for folder, name in sorted((folder, name) for folder in folders for name in os.listdir(folder)):
        if not name.endswith(".proto"):
            continue
        text = re.sub(r"//[^\n]*", "", open(os.path.join(folder, name), encoding="utf-8").read())
        package = re.search(r"^\s*package\s+([\w.]+)\s*;", text, re.M).group(1)
        stack, pending = [], []
        for token in re.finditer(r"(message|enum|service)\s+(\w+)\s*\{|\}|([^{};]+;)", text):
            kind, ident, statement = token.group(1), token.group(2), token.group(3)
            if kind:
                stack.append((kind, ident))
                scope = ".".join([package] + [n for _, n in stack])
                if kind == "message":
                    messages.setdefault(scope, {})
                elif kind == "enum":
                    enums[scope] = {}
            elif token.group(0) == "}":
                if stack:
                    stack.pop()
            elif stack:
                kind, _ = stack[-1]
                scope = ".".join([package] + [n for _, n in stack])
                statement = statement.strip()
                if kind == "message":
                    m = re.match(r"(optional\s+|repeated\s+)?([\w.]+)\s+(\w+)\s*=\s*(\d+)", statement)
                    if m:
                        pending.append((scope, m.group(3), int(m.group(4)), m.group(2), (m.group(1) or "").strip() == "repeated", package))
                elif kind == "enum":
                    m = re.match(r"(\w+)\s*=\s*(\d+)", statement)
                    if m:
                        enums[scope][int(m.group(2))] = m.group(1)
                elif kind == "service":
                    m = re.match(r"rpc\s+(\w+)\s*\(\s*([\w.]+)\s*\)\s*returns\s*\(\s*(stream\s+)?([\w.]+)\s*\)", statement)
                    if m:
                        methods[f"{scope}/{m.group(1)}"] = (qualify(m.group(2), package), qualify(m.group(4), package))
        for scope, field, number, type_name, repeated, pkg in pending:
            messages[scope][field] = (number, resolve(type_name, scope, pkg, messages, enums), repeated)
    return messages, enums, methods


def qualify(type_name, package):
    return type_name if "." in type_name else f"{package}.{type_name}"


def resolve(type_name, scope, package, messages, enums):
    if type_name in SCALARS:
        return type_name
    # Innermost scope first, as protoc resolves names.
    parts = scope.split(".")
    for i in range(len(parts), 0, -1):
        candidate = ".".join(parts[:i] + [type_name])
        if candidate in messages or candidate in enums:
            return candidate
    return type_name


def varint(value):
    value &= (1 << 64) - 1  # negative numbers as 10-byte two's complement, as protobuf does
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def encode(message, value, messages, enums):
    out = bytearray()
    for field, item in value.items():
        number, type_name, repeated = messages[message][field]
        for v in (item if repeated else [item]):
            if type_name in ("string", "bytes"):
                data = v.encode("utf-8") if type_name == "string" else bytes(v)
                out += varint(number << 3 | 2) + varint(len(data)) + data
            elif type_name in messages:
                data = encode(type_name, v, messages, enums)
                out += varint(number << 3 | 2) + varint(len(data)) + data
            else:
                if type_name in enums:
                    v = v if isinstance(v, int) else {n: k for k, n in enums[type_name].items()}[v]
                out += varint(number << 3 | 0) + varint(int(v))
    return bytes(out)


def read_varint(data, pos):
    result = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def decode(message, data, messages, enums):
    fields = {number: (name, type_name, repeated) for name, (number, type_name, repeated) in messages[message].items()}
    result, pos = {}, 0
    while pos < len(data):
        key, pos = read_varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            raw, pos = read_varint(data, pos)
        elif wire == 2:
            length, pos = read_varint(data, pos)
            raw, pos = data[pos:pos + length], pos + length
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            raw, pos = data[pos:pos + size], pos + size
        else:
            raise ValueError(f"unsupported wire type {wire}")
        if number not in fields:
            continue  # unknown fields are skipped, as any protobuf parser does
        name, type_name, repeated = fields[number]
        if type_name == "string":
            value = raw.decode("utf-8")
        elif type_name in messages:
            value = decode(type_name, raw, messages, enums)
        elif type_name in enums:
            value = enums[type_name].get(raw, raw)
        elif type_name == "bool":
            value = bool(raw)
        elif type_name in ("int64", "uint64", "int32"):
            signed = raw - (1 << 64) if raw >= 1 << 63 else raw
            value = str(signed) if type_name.endswith("64") else signed
        else:
            value = raw
        if repeated:
            result.setdefault(name, []).append(value)
        else:
            result[name] = value
    return result


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    target, full_method, request_json, rest = argv[0], argv[1], argv[2], argv[3:]
    metadata, timeout = [], None
    if len(rest) % 2:
        print("an option needs a value", file=sys.stderr)
        return 2
    for option, value in zip(rest[::2], rest[1::2]):
        if option == "--metadata" and "=" in value:
            key, _, val = value.partition("=")
            metadata.append((key, val))
        elif option == "--deadline-ms":
            timeout = int(value) / 1000.0
        else:
            print(f"bad option {option} {value}", file=sys.stderr)
            return 2

    messages, enums, methods = parse_protos(PROTO_DIRS)
    if full_method not in methods:
        # Still callable (to see how the server answers an unknown method): empty messages both ways.
        methods[full_method] = (None, None)
    request_type, response_type = methods[full_method]
    request = encode(request_type, json.loads(request_json), messages, enums) if request_type else b""

    with grpc.insecure_channel(target) as channel:
        call = channel.unary_unary(
            "/" + full_method,
            request_serializer=lambda b: b,
            response_deserializer=lambda b: b)
        try:
            raw = call(request, timeout=timeout, metadata=metadata or None)
            response = decode(response_type, raw, messages, enums) if response_type else {}
            result = {"ok": True, "response": response}
        except grpc.RpcError as error:
            code = error.code()
            result = {"ok": False, "code": code.value[0], "codeName": code.name, "details": error.details()}
    print(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
