// The tests' independent runtime for exported .onnx files: ONNX Runtime (onnxruntime-node, CPU).
//
//   node run_onnx.mjs MODEL.onnx INPUT.f32 DIMS OUTPUT.f32
//
// INPUT.f32 holds the input "input" as raw little-endian float32 in C order, DIMS its shape ("37,1,28,28").
// Writes the first output ("logits") as raw float32 to OUTPUT.f32 and prints one JSON line
// {"output": name, "dims": [...], "inputs": [...], "outputs": [...]} so the caller can check the shape.
// Graph optimizations stay at ORT's default ("all"): the int8 QDQ graphs are meant to be fused into
// QLinear* kernels the way a deployment would run them.
import { readFileSync, writeFileSync } from 'node:fs';
import ort from 'onnxruntime-node';

async function main() {
  const [modelPath, inputPath, dimsText, outputPath] = process.argv.slice(2);
  if (!outputPath) {
    console.error('usage: node run_onnx.mjs MODEL.onnx INPUT.f32 DIMS OUTPUT.f32');
    process.exit(2);
  }
  const dims = dimsText.split(',').map((d) => Number.parseInt(d, 10));
  const raw = readFileSync(inputPath);
  // Copy into an aligned buffer: Buffer slices may start at any byte offset.
  const data = new Float32Array(raw.byteLength / 4);
  new Uint8Array(data.buffer).set(raw);
  const expected = dims.reduce((a, b) => a * b, 1);
  if (data.length !== expected) {
    throw new Error(`${inputPath} holds ${data.length} floats, dims ${dimsText} need ${expected}`);
  }
  const session = await ort.InferenceSession.create(modelPath, { executionProviders: ['cpu'], intraOpNumThreads: 2 });
  const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', data, dims) };
  const results = await session.run(feeds);
  const name = session.outputNames[0];
  const out = results[name];
  if (out.type !== 'float32') throw new Error(`output ${name} is ${out.type}, not float32`);
  writeFileSync(outputPath, Buffer.from(out.data.buffer, out.data.byteOffset, out.data.byteLength));
  console.log(JSON.stringify({ output: name, dims: out.dims, inputs: session.inputNames, outputs: session.outputNames }));
}

main().catch((e) => {
  console.error(`run_onnx: ${e.message ?? e}`);
  process.exit(1);
});
