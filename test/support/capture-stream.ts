/** A writable stream that keeps each chunk written to it: what a progress reporter drew. */
export function captureStream(): { stream: NodeJS.WritableStream; chunks: string[]; text(): string } {
  const chunks: string[] = [];
  const stream = {
    write: (chunk: string) => {
      chunks.push(chunk);
      return true;
    },
  } as unknown as NodeJS.WritableStream;
  return { stream, chunks, text: () => chunks.join('') };
}
