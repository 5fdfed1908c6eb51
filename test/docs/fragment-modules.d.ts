// Packages the documents' fragments import that this repository does not install: a shop's own database driver.
// Declared whole (any), so that a fragment's use of them is the shop's to check, and its use of svc-checkout ours.
declare module 'pg';
