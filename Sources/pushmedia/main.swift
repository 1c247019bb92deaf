import PushMediaCLI

// The shipped binary: the command line as it is, with no hooks.
PushMediaMain.main()
