"""Reports and exports: HTML, PDF, XLSX/CSV and the reproducible bundle."""
