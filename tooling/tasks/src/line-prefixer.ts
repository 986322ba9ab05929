/**
 * Writes a stream's text line by line, each line behind `prefix`, so the
 * output of tasks running at once stays readable. A partial line waits for
 * its end (or `flush`).
 */
export function linePrefixer(
  prefix: string,
  write: (text: string) => void,
): { push(chunk: string): void; flush(): void } {
  let carry = "";
  return {
    push(chunk) {
      const text = carry + chunk;
      const end = text.lastIndexOf("\n");
      if (end === -1) {
        carry = text;
        return;
      }
      carry = text.slice(end + 1);
      write(
        text
          .slice(0, end)
          .split("\n")
          .map((line) => `${prefix}${line}\n`)
          .join(""),
      );
    },
    flush() {
      if (carry !== "") write(`${prefix}${carry}\n`);
      carry = "";
    },
  };
}
