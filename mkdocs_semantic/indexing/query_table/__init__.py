"""The static query table: a token table fitted at build time that stands in for the
model at query time. `fit` fits it on the training texts `texts` draws from the site and
caches the result; `ridge` is the regression; `packed_cholesky` its solver; `fidelity`
measures the table against the model on phrases held out of the fit."""
