import Foundation
import PushMediaCLI

// `pushmedia-testing`: the shipped commands with the tests' hooks (TestItemHooks), made from the
// environment, which item processes started anew inherit (they are this binary again); the fork
// server forked from this process has them already.
PushMediaMain.main(hooks: TestItemHooks(environment: ProcessInfo.processInfo.environment))
