// Asks a server what it serves through gRPC server reflection (grpc.reflection.v1), with
// @grpc/grpc-js and the reflection .proto that @grpc/reflection ships: no code from the server.
//
// usage: node reflect.mjs HOST:PORT SYMBOL [--metadata key=value]...
//
// Prints one JSON line:
//   {"ok":true,"services":["..."],"symbol":{"files":["..."],"services":{"pkg.Service":["Method",...]}}}
//   {"ok":false,"code":N,"codeName":"...","details":"..."}
// Exits 0 in both cases, 2 on a usage error.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';

const require = createRequire(import.meta.url);
const descriptor = require('protobufjs/ext/descriptor');

function usage(message) {
  process.stderr.write(`${message}\nusage: node reflect.mjs HOST:PORT SYMBOL [--metadata key=value]...\n`);
  process.exit(2);
}

const [target, symbol, ...rest] = process.argv.slice(2);
if (!target || !symbol) usage('missing arguments');
const metadata = new grpc.Metadata();
for (let i = 0; i < rest.length; i += 2) {
  const value = rest[i + 1];
  const eq = value?.indexOf('=') ?? -1;
  if (rest[i] !== '--metadata' || eq <= 0) usage(`bad option ${rest[i]} ${value}`);
  metadata.add(value.slice(0, eq), value.slice(eq + 1));
}

const reflectionProto = join(dirname(require.resolve('@grpc/reflection/package.json')), 'build', 'proto', 'grpc', 'reflection', 'v1', 'reflection.proto');
const definition = protoLoader.loadSync(reflectionProto, { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true });
const { ServerReflection } = grpc.loadPackageDefinition(definition).grpc.reflection.v1;
const client = new ServerReflection(target, grpc.credentials.createInsecure());

const call = client.ServerReflectionInfo(metadata, { deadline: new Date(Date.now() + 10_000) });
const result = { ok: true, services: [], symbol: { files: [], services: {} } };
call.on('data', (response) => {
  if (response.list_services_response) {
    result.services = response.list_services_response.service.map((s) => s.name);
  } else if (response.file_descriptor_response) {
    for (const bytes of response.file_descriptor_response.file_descriptor_proto) {
      const file = descriptor.FileDescriptorProto.decode(bytes);
      result.symbol.files.push(file.name);
      for (const service of file.service ?? []) {
        result.symbol.services[`${file.package}.${service.name}`] = (service.method ?? []).map((m) => m.name);
      }
    }
  } else if (response.error_response) {
    Object.assign(result, { ok: false, code: response.error_response.error_code, details: response.error_response.error_message });
  }
});
let finished = false;
call.on('error', (error) => {
  if (finished) return;
  finished = true;
  process.stdout.write(`${JSON.stringify({ ok: false, code: error.code, codeName: grpc.status[error.code], details: error.details })}\n`);
  client.close();
});
call.on('end', () => {
  if (finished) return;
  finished = true;
  process.stdout.write(`${JSON.stringify(result)}\n`);
  client.close();
});
call.write({ list_services: '' });
call.write({ file_containing_symbol: symbol });
call.end();
