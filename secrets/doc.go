// Package secrets finds credentials and <private> spans in text and
// replaces them before a record is written.
package secrets
