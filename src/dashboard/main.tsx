import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { ApiError } from './api/client';
import { SessionProvider } from './api/session';
import { App } from './app';
import './styles/base.css';
import './styles/layout.css';
import './styles/forms.css';
import './styles/controls.css';
import './styles/dialogs.css';
import './styles/overview.css';
// Last: the narrow-screen rules override the ones above.
import './styles/phones.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A client error (404, 400, 403) will not heal by asking again; a dropped connection or a 5xx may.
      retry: (failures, error) => failures < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
      staleTime: 5_000,
    },
    mutations: { retry: false },
  },
});

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');

createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <SessionProvider>
        <BrowserRouter>
          <App />
        </BrowserRouter>
      </SessionProvider>
    </QueryClientProvider>
  </StrictMode>,
);
