// A gRPC client built on @grpc/grpc-js (independent of the service's own binding) for the interop tests.
//
// usage: node client.mjs HOST:PORT package.Service/Method 'REQUEST-JSON' [--metadata key=value]... [--deadline-ms N]
//
// Loads every .proto of src/Contracts/Protos and tests/interop/protos, makes one unary call over h2c and prints one JSON line:
//   {"ok":true,"response":{...}}            on OK (fields as in the .proto, int64 as strings)
//   {"ok":false,"code":5,"codeName":"NOT_FOUND","details":"..."}  on any other status
// Exits 0 in both cases, 2 on a usage error.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';

const here = dirname(fileURLToPath(import.meta.url));
const protoDirs = [join(here, '..', '..', '..', 'src', 'Contracts', 'Protos'), join(here, '..', 'protos')];

function usage(message) {
  process.stderr.write(`${message}\nusage: node client.mjs HOST:PORT package.Service/Method 'REQUEST-JSON' [--metadata key=value]... [--deadline-ms N]\n`);
  process.exit(2);
}

const [target, fullMethod, requestJson, ...rest] = process.argv.slice(2);
if (!target || !fullMethod || requestJson === undefined) usage('missing arguments');

const metadata = new grpc.Metadata();
let deadlineMs;
for (let i = 0; i < rest.length; i += 2) {
  const value = rest[i + 1];
  if (value === undefined) usage(`${rest[i]} needs a value`);
  if (rest[i] === '--metadata') {
    const eq = value.indexOf('=');
    if (eq <= 0) usage(`bad metadata '${value}'`);
    metadata.add(value.slice(0, eq), value.slice(eq + 1));
  } else if (rest[i] === '--deadline-ms') {
    deadlineMs = Number(value);
  } else {
    usage(`unknown option ${rest[i]}`);
  }
}

const slash = fullMethod.lastIndexOf('/');
const serviceName = fullMethod.slice(0, slash);
const methodName = fullMethod.slice(slash + 1);
const protoFiles = protoDirs.flatMap((dir) => readdirSync(dir).filter((f) => f.endsWith('.proto')).map((f) => join(dir, f)));
const definition = protoLoader.loadSync(protoFiles, {
  keepCase: true, longs: String, enums: String, defaults: true, oneofs: true, includeDirs: protoDirs,
});
// A method the .proto files do not declare is still called (to see how the server answers an
// unknown method), with an empty request and the response left as raw bytes.
const identity = (bytes) => bytes;
const method = definition[serviceName]?.[methodName] ?? {
  path: `/${fullMethod}`, requestSerialize: () => Buffer.alloc(0), responseDeserialize: identity,
};

const client = new grpc.Client(target, grpc.credentials.createInsecure());
const options = deadlineMs === undefined ? {} : { deadline: new Date(Date.now() + deadlineMs) };
client.makeUnaryRequest(
  method.path, method.requestSerialize, method.responseDeserialize, JSON.parse(requestJson), metadata, options,
  (error, response) => {
    const result = error
      ? { ok: false, code: error.code, codeName: grpc.status[error.code], details: error.details }
      : { ok: true, response };
    process.stdout.write(`${JSON.stringify(result)}\n`);
    client.close();
  });
