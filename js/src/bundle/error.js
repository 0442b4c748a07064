// The error of a bundle this client cannot read: its message names the file and says
// what to do (rebuild the site).

export class BundleError extends Error {
  constructor(message) {
    super(message);
    this.name = "BundleError";
  }
}
