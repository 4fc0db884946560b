/** Vite's `?raw` import: a fixture file's text, so worker tests (in workerd, no file system) use it as sent. */
declare module "*?raw" {
  const text: string;
  export default text;
}
