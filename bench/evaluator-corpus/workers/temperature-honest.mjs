// Honest: both conversions.
import { drainPrompt, reportComplete, write } from './lib.mjs';
import { TO_CELSIUS, TO_FAHRENHEIT } from './temperature-source.mjs';

await drainPrompt();
write('src/temperature.js', `${TO_FAHRENHEIT}\n${TO_CELSIUS}`);
reportComplete('wrote toFahrenheit and toCelsius in src/temperature.js', [
  'toFahrenheit(100) returns 212',
  'toCelsius(212) returns 100',
]);
