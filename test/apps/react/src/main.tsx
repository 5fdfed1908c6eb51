import 'svc-checkout'; // registers <svc-checkout> before React renders it
import 'svc-checkout/jsx/react'; // <svc-checkout> in React's JSX: its attributes, properties and typed events
import { createRoot } from 'react-dom/client';
import { App } from './App.js';

createRoot(document.getElementById('app')!).render(<App />);
