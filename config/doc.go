// Package config reads .lore/config.toml: the defaults, the commented
// template lore init writes, and errors that name the file, line and key.
package config
