// The source of the two conversions the temperature workers write (the half-done one writes only the first).

/** toFahrenheit, as both temperature workers write it. */
export const TO_FAHRENHEIT = `/** Degrees Celsius in degrees Fahrenheit. */
export function toFahrenheit(celsius) {
  return (celsius * 9) / 5 + 32;
}
`;

/** toCelsius, as the honest worker writes it. */
export const TO_CELSIUS = `/** Degrees Fahrenheit in degrees Celsius. */
export function toCelsius(fahrenheit) {
  return ((fahrenheit - 32) * 5) / 9;
}
`;
