/** The SIGTERM drill, each step held past the grace and released (test/support/sigterm-drill.ts). */
import { describeSigtermDrill } from '../support/sigterm-drill';

describeSigtermDrill('exit');
