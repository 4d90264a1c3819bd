/**
 * s3rver in its own process (run as `node --openssl-legacy-provider --import tsx s3rver-main.ts
 * DIR BUCKET [--cors]`): prints `{"port": N}` once listening and serves until killed. Its own process
 * because s3rver makes continuation tokens with DES, which OpenSSL 3 only offers through the
 * legacy provider, a process-wide switch the code under test should not run with.
 */
import S3rver from "s3rver";

const [directory, bucket, ...flags] = process.argv.slice(2);
/**
 * With `--cors`: the bucket answers browsers from any origin (pages the tests serve from another
 * port), for every method and header SigV4 signing and ranged reads send, and lets them read ETag.
 */
const CORS = `<CORSConfiguration><CORSRule>
  <AllowedOrigin>*</AllowedOrigin>
  <AllowedMethod>GET</AllowedMethod><AllowedMethod>HEAD</AllowedMethod><AllowedMethod>PUT</AllowedMethod><AllowedMethod>DELETE</AllowedMethod><AllowedMethod>POST</AllowedMethod>
  <AllowedHeader>*</AllowedHeader>
  <ExposeHeader>ETag</ExposeHeader><ExposeHeader>Content-Range</ExposeHeader><ExposeHeader>Content-Length</ExposeHeader>
</CORSRule></CORSConfiguration>`;
const configs = flags.includes("--cors") ? [CORS] : [];
const server = new S3rver({ port: 0, address: "127.0.0.1", silent: true, directory: directory!, configureBuckets: [{ name: bucket!, configs }] });
const { port } = await server.run();
process.stdout.write(`${JSON.stringify({ port })}\n`);
process.on("SIGTERM", () => void server.close().then(() => process.exit(0)));
