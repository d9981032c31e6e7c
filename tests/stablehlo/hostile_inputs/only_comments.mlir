// nothing here
// -----
// or here
