// Progress reports of Engine.load() as a sentence and a fraction.
export function describeProgress({ phase, loaded, total }) {
  if (phase === "start") return { text: "Starting the search model…" };
  const mb = (n) => (n / 1e6).toFixed(1);
  return {
    text: `Downloading the search model: ${mb(loaded)} of ${mb(total)} MB`,
    fraction: total ? loaded / total : undefined,
  };
}
