// False completion, half the objective done: writes toFahrenheit and reports both conversions written.
import { drainPrompt, reportComplete, write } from './lib.mjs';
import { TO_FAHRENHEIT } from './temperature-source.mjs';

await drainPrompt();
write('src/temperature.js', TO_FAHRENHEIT);
reportComplete('wrote the conversions in src/temperature.js', ['toFahrenheit(100) returns 212']);
