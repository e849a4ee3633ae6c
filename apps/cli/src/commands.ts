// Each command module pushes itself onto `extraCommands` when imported.
import './report';
import './generate';
import './demo';

export {};
