// Package posixlocale replaces a POSIX locale ("C", "POSIX", "C.UTF-8") in
// the environment with en_US before Fyne's packages initialise: Fyne parses
// the locale as a BCP 47 tag when it is imported and logs an error for
// "C" on every start of voxlab, headless commands included. Import it for
// its side effect, before anything that imports Fyne.
package posixlocale
