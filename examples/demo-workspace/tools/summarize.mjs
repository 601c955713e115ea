// Counts the lines of the files named on the command line and writes SUMMARY.txt, e.g. "2 files, 6 lines".
import { readFileSync, writeFileSync } from 'node:fs';

const files = process.argv.slice(2);
const counts = files.map((file) => [file, readFileSync(file, 'utf8').split('\n').length - 1]);
const total = counts.reduce((sum, [, lines]) => sum + lines, 0);
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
const lines = [
  `${plural(files.length, 'file')}, ${plural(total, 'line')}`,
  ...counts.map(([file, n]) => `${file}: ${plural(n, 'line')}`),
];
writeFileSync('SUMMARY.txt', `${lines.join('\n')}\n`);
console.log(lines[0]);
